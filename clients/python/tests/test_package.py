"""The package installs with pip, offline, and imports from where it went."""

import os
import shutil
import subprocess
import sys

import pytest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(PACKAGE, "..", "..", "VERSION")) as f:
    VERSION = f.read().strip()


def test_pip_installs_it(tmp_path):
    pytest.importorskip("wheel", reason="pip builds the wheel with setuptools and wheel (Debian: python3-wheel)")
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index",
         "--break-system-packages", "--target", str(target), str(src)],
        check=True, timeout=300,
    )
    out = subprocess.run(
        [sys.executable, "-c", "import creativeops, sys; print(creativeops.__file__, creativeops.__version__)"],
        env={**os.environ, "PYTHONPATH": str(target)}, cwd=str(tmp_path), capture_output=True, text=True, check=True,
    )
    assert out.stdout.startswith(str(target)) and out.stdout.strip().endswith(" " + VERSION)
    assert (target / "creativeops" / "py.typed").exists()
    # The gRPC stubs ship in the package (they import only with the grpc
    # extra), and the extra is declared.
    for f in ("__init__.py", "creators_pb2.py", "creators_pb2.pyi", "creators_pb2_grpc.py"):
        assert (target / "creativeops" / "grpc" / "v1" / f).exists(), f
    metadata = next(target.glob("creativeops-*.dist-info")) / "METADATA"
    lines = metadata.read_text().splitlines()
    assert "Provides-Extra: grpc" in lines
    assert any(line.startswith("Requires-Dist: grpcio") and 'extra == "grpc"' in line.replace("'", '"') for line in lines), lines
