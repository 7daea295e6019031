"""Starts a real creativeops server for the tests: built from this
repository, on loopback, with a fresh SQLite database."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    """(base_url, admin_key) of a running server."""
    work = tempfile.mkdtemp(prefix="creativeops-py-")
    # CREATIVEOPS_TEST_BINARY: a server binary built already (as the
    # TypeScript client's tests take it), else one built from this checkout.
    binary = os.environ.get("CREATIVEOPS_TEST_BINARY") or os.path.join(work, "creativeops")
    if not os.environ.get("CREATIVEOPS_TEST_BINARY"):
        subprocess.run(["go", "build", "-o", binary, "./cmd/creativeops"], cwd=REPO, check=True, timeout=600)
    data = os.path.join(work, "data")
    port = _free_port()
    log = open(os.path.join(work, "serve.log"), "w+b")
    proc = subprocess.Popen(
        [binary, "serve", "--http-addr", f"127.0.0.1:{port}", "--data-dir", data,
         "--database-url", "sqlite://" + os.path.join(data, "creativeops.db"), "--allow-insecure-webhooks",
         "--webhook-retry-schedule", "0s,1s,1s"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/readyz", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError("server did not start:\n" + log.read().decode(errors="replace"))
                time.sleep(0.1)
        yield base, _bootstrap_key(data, log)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def _bootstrap_key(data_dir: str, log) -> str:
    """The all-scopes key of the first start: in <data-dir>/bootstrap-key
    when the server had no terminal, else in its banner on stderr."""
    path = os.path.join(data_dir, "bootstrap-key")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if os.path.exists(path):
            m = re.search(r"co_live_[A-Za-z0-9]+", open(path).read())
            if m:
                return m.group(0)
        log.seek(0)
        m = re.search(rb"co_live_[A-Za-z0-9]+", log.read())
        if m:
            return m.group(0).decode()
        time.sleep(0.1)
    raise RuntimeError("no bootstrap key found")
