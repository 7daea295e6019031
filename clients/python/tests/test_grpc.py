"""The optional gRPC extra (creativeops.grpc) against a live server. Skipped
when grpcio or protobuf is not installed."""

import os
import subprocess
import sys
import uuid

import pytest

grpc = pytest.importorskip("grpc", reason="the grpc extra needs grpcio (Debian: python3-grpcio)")
pytest.importorskip("google.protobuf", reason="the grpc extra needs protobuf (Debian: python3-protobuf)")

from google.protobuf import json_format, struct_pb2  # noqa: E402

from creativeops import CreativeOps  # noqa: E402
from creativeops.grpc import connect, open_channel  # noqa: E402
from creativeops.grpc.v1 import creators_pb2, engine_pb2  # noqa: E402

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def struct(d):
    s = struct_pb2.Struct()
    s.update(d)
    return s


@pytest.fixture(scope="module")
def co(server):
    base, key = server
    return CreativeOps(api_key=key, base_url=base)


@pytest.fixture(scope="module")
def rpc(co):
    with co.grpc() as client:
        yield client


def test_stubs_need_only_protobuf_and_grpcio():
    # The server-only options (google.api.http, buf.validate, our rules)
    # were stripped: importing every stub loads no module of theirs.
    code = ("import sys, creativeops.grpc, creativeops.grpc.v1.ip_pb2_grpc, creativeops.grpc.v1.webhooks_pb2_grpc;"
            "bad = [m for m in sys.modules if m.startswith(('google.api', 'google.rpc', 'buf'))];"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], cwd=PACKAGE, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_create_and_get_a_creator_over_grpc(co, rpc):
    email = f"grpc-{uuid.uuid4().hex[:8]}@example.com"
    created, call = rpc.creators.CreateCreator.with_call(creators_pb2.CreateCreatorRequest(
        name="Nova Reyes", email=email, vertical="music", metadata=struct({"label": "Night Owl", "followers": 1200})))
    assert created.id.startswith("cr_") and created.status == "active"
    assert dict(call.initial_metadata()).get("x-request-id", "").startswith("req_")
    got = rpc.creators.GetCreator(creators_pb2.GetCreatorRequest(id=created.id))
    assert got.email == email and json_format.MessageToDict(got.metadata) == {"label": "Night Owl", "followers": 1200}
    # The same creator over REST.
    assert co.creators.get(created.id)["email"] == email


def test_a_workflow_runs_over_grpc(rpc):
    job = rpc.engine.RunWorkflow(engine_pb2.RunWorkflowRequest(
        vertical="music", workflow="release-strategy",
        context=struct({"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-23"})))
    assert job.status == "completed" and job.id.startswith("job_")
    assert "Nova Reyes" in json_format.MessageToDict(job.result)["strategy"]
    assert rpc.engine.GetJob(engine_pb2.GetJobRequest(id=job.id)).status == "completed"


def test_a_bad_key_is_unauthenticated(server):
    base, _ = server
    with connect(base, api_key="co_live_not_a_key") as bad:
        with pytest.raises(grpc.RpcError) as e:
            bad.creators.GetCreator(creators_pb2.GetCreatorRequest(id="cr_01jx0000000000000000000000"))
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_an_unknown_creator_is_not_found(rpc):
    with pytest.raises(grpc.RpcError) as e:
        rpc.creators.GetCreator(creators_pb2.GetCreatorRequest(id="cr_01jx0000000000000000000000"))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND and "cr_01jx0000000000000000000000" in e.value.details()


def test_open_channel_refuses_a_url_it_cannot_use():
    for url in ("localhost:8080", "ftp://h", "http://h:8080/api"):
        with pytest.raises(ValueError):
            open_channel(url, "co_live_x")
    with pytest.raises(ValueError):
        open_channel("http://localhost:8080", "")
