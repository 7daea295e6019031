"""The client's transport against scripted local servers: error classes,
which requests are retried after a connection failure, per-call options,
response info, hooks and logging, and the deprecated names."""

import logging
import socket
import threading
import time
import warnings
from datetime import datetime, timezone

import pytest

import creativeops
from creativeops import (
    APIConnectionError,
    APITimeoutError,
    CreativeOps,
    CreativeOpsError,
    NotFound,
    response_info,
)

KEY = "co_live_secretsecretsecretsecretsecret000000"


class Scripted:
    """A loopback HTTP server that treats connection i by script[i]:
    "drop" reads the request and closes without answering, "stall" reads it
    and never answers, a (status, headers, body) tuple answers; after the
    script, every connection gets the last entry. requests holds (method,
    path, headers) of each request read."""

    def __init__(self, *script):
        self.script = list(script)
        self.requests = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            i = len(self.requests)
            action = self.script[min(i, len(self.script) - 1)]
            threading.Thread(target=self._handle, args=(conn, action), daemon=True).start()
            while len(self.requests) == i and not self.stop.is_set():  # one connection at a time, in order
                time.sleep(0.005)

    def _handle(self, conn, action):
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
            while len(body) < int(headers.get("content-length", 0)):
                body += conn.recv(65536)
            method, path, _ = lines[0].split(" ")
            self.requests.append((method, path, headers))
            if action == "drop":
                return
            if action == "stall":
                self.stop.wait(10)
                return
            status, extra, payload = action
            out = "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n" % (
                status, len(payload))
            out += "".join("%s: %s\r\n" % kv for kv in extra.items())
            conn.sendall(out.encode() + b"\r\n" + payload)

    def close(self):
        self.stop.set()
        self.sock.close()


OK = (200, {"X-Request-Id": "req_abc", "RateLimit": "limit=200, remaining=17, reset=3",
            "RateLimit-Policy": "100;w=1;burst=200"}, b'{"id": "cr_1", "name": "Nova"}')


@pytest.fixture
def serve():
    servers = []

    def start(*script):
        s = Scripted(*script)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def refused_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return "http://127.0.0.1:%d" % s.getsockname()[1]


def test_a_refused_connection_is_an_api_connection_error_and_is_retried():
    attempts = []
    co = CreativeOps(KEY, refused_url(), max_retries=2, on_request=lambda m, u, h: attempts.append(u))
    with pytest.raises(APIConnectionError) as e:
        co.creators.get("cr_1")
    assert isinstance(e.value, CreativeOpsError) and not isinstance(e.value, APITimeoutError)
    assert e.value.http_status == 0 and e.value.status == "UNAVAILABLE" and "refused" in str(e.value).lower()
    assert len(attempts) == 3
    # A POST that was never received is safe to repeat even without a key.
    attempts.clear()
    with pytest.raises(APIConnectionError):
        co.creators.create("N", "n@example.com", "music")
    assert len(attempts) == 3


def test_an_unresolvable_name_is_an_api_connection_error():
    co = CreativeOps(KEY, "http://no-such-host.invalid", max_retries=0)
    with pytest.raises(APIConnectionError) as e:
        co.creators.get("cr_1")
    assert e.value.status == "UNAVAILABLE"


def test_a_stalled_answer_is_an_api_timeout_error(serve):
    srv = serve("stall")
    co = CreativeOps(KEY, srv.url, max_retries=0, timeout=30)
    start = time.monotonic()
    with pytest.raises(APITimeoutError) as e:
        co.creators.get("cr_1", timeout=0.3)  # the per-call timeout wins over the client's
    assert time.monotonic() - start < 5
    assert isinstance(e.value, APIConnectionError) and isinstance(e.value, TimeoutError)
    assert e.value.http_status == 0 and e.value.status == "DEADLINE_EXCEEDED"
    impatient = CreativeOps(KEY, srv.url, max_retries=0, timeout=0.3)
    with pytest.raises(APITimeoutError):
        impatient.creators.get("cr_1")


def test_a_get_is_retried_after_a_dropped_connection(serve):
    srv = serve("drop", OK)
    co = CreativeOps(KEY, srv.url, max_retries=2)
    assert co.creators.get("cr_1")["name"] == "Nova"
    assert [r[0] for r in srv.requests] == ["GET", "GET"]


def test_a_keyless_post_is_not_retried_after_a_dropped_connection(serve):
    srv = serve("drop", OK)
    co = CreativeOps(KEY, srv.url, max_retries=3, auto_idempotency_keys=False)
    with pytest.raises(APIConnectionError):
        co.creators.create("N", "n@example.com", "music")
    assert len(srv.requests) == 1  # it may have been processed: not sent again
    assert "idempotency-key" not in srv.requests[0][2]


def test_a_post_with_a_generated_key_is_retried_with_that_key(serve):
    srv = serve("drop", OK)
    created = CreativeOps(KEY, srv.url, max_retries=3).creators.create("N", "n@example.com", "music")
    assert created["id"] == "cr_1"
    keys = [r[2]["idempotency-key"] for r in srv.requests]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0]  # the server runs it once


def test_a_post_with_an_idempotency_key_is_retried_with_that_key(serve):
    srv = serve("drop", "drop", OK)
    co = CreativeOps(KEY, srv.url, max_retries=3)
    created = co.creators.create("N", "n@example.com", "music", idempotency_key="signup-42")
    assert created["id"] == "cr_1"
    assert [(r[0], r[2]["idempotency-key"]) for r in srv.requests] == [("POST", "signup-42")] * 3
    # Given as a header, the key counts the same.
    srv2 = serve("drop", OK)
    CreativeOps(KEY, srv2.url).creators.create("N", "n@example.com", "music", headers={"Idempotency-Key": "k2"})
    assert [r[2]["idempotency-key"] for r in srv2.requests] == ["k2", "k2"]


def test_a_keyless_post_gets_one_key_for_its_retries_of_429(serve):
    srv = serve((429, {"Retry-After": "0"}, b'{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}'), OK)
    CreativeOps(KEY, srv.url).creators.create("N", "n@example.com", "music")
    keys = [r[2]["idempotency-key"] for r in srv.requests]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0]


def test_headers_and_timeout_are_per_call_options(serve):
    srv = serve(OK)
    co = CreativeOps(KEY, srv.url)
    co.creators.get("cr_1", headers={"X-Trace": "t-1", "User-Agent": "mine/1"}, timeout=5)
    co.creators.get("cr_1")
    first, second = srv.requests[0][2], srv.requests[1][2]
    assert first["x-trace"] == "t-1" and first["user-agent"] == "mine/1" and first["authorization"] == "Bearer " + KEY
    assert "x-trace" not in second and second["user-agent"].startswith("creativeops-python/")
    with pytest.raises(TypeError):
        co.creators.get("cr_1", timeuot=5)  # a misspelt option is not ignored


def test_response_info_of_results_and_list_items(serve):
    srv = serve(OK, (200, {"X-Request-Id": "req_page"}, b'{"creators": [{"id": "cr_1"}], "next_page_token": ""}'))
    co = CreativeOps(KEY, srv.url)
    got = co.creators.get("cr_1")
    assert got == {"id": "cr_1", "name": "Nova"} and isinstance(got, dict)
    info = response_info(got)
    assert info.request_id == "req_abc"
    assert info.rate_limit == (200, 17, 3) and info.rate_limit.reset_seconds == 3
    [item] = list(co.creators.list())
    assert response_info(item).request_id == "req_page" and response_info(item).rate_limit is None
    assert response_info({"id": "cr_1"}) is None


def test_errors_name_the_http_status_and_the_api_status(serve):
    body = (b'{"error": {"code": 404, "status": "NOT_FOUND", "message": "creator cr_1 not found", "request_id": "req_e",'
            b' "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "NOT_FOUND"}]}}')
    srv = serve((404, {"X-Request-Id": "req_e"}, body))
    with pytest.raises(NotFound) as e:
        CreativeOps(KEY, srv.url).creators.get("cr_1")
    assert (e.value.http_status, e.value.status, e.value.reason, e.value.request_id) == (404, "NOT_FOUND", "NOT_FOUND", "req_e")


def test_hooks_see_each_attempt_and_the_logger_never_the_key(serve, caplog):
    srv = serve("drop", OK)
    seen = []
    co = CreativeOps(KEY, srv.url, on_request=lambda m, u, h: seen.append(("request", m, u, dict(h))),
                     on_response=lambda s, h, e, rid, a: seen.append(("response", s, rid, a, e >= 0)))
    with caplog.at_level(logging.DEBUG, logger="creativeops"):
        co.creators.get("cr_1")
    assert [x[0] for x in seen] == ["request", "response", "request", "response"]
    assert seen[0][1:3] == ("GET", srv.url + "/v1/creators/cr_1")
    assert seen[0][3]["Authorization"] == "Bearer [redacted]"
    assert seen[1] == ("response", 0, "", 1, True)
    assert seen[3] == ("response", 200, "req_abc", 2, True)
    records = [r.getMessage() for r in caplog.records if r.name == "creativeops"]
    assert any("-> 200" in m and "req_abc" in m for m in records) and any("retrying GET" in m for m in records)
    assert all(KEY not in m for m in records)
    assert KEY not in repr(co) and all(KEY not in str(x) for x in seen)


def test_the_old_names_warn_and_still_work(serve):
    srv = serve((200, {}, b'{"verticals": [{"key": "music"}], "id": "job_1", "status": "completed"}'))
    co = CreativeOps(KEY, srv.url)
    with pytest.warns(DeprecationWarning, match=r"Engine.verticals\(\) is deprecated: use list_verticals\(\)"):
        assert co.engine.verticals() == [{"key": "music"}]
    with pytest.warns(DeprecationWarning, match="wait_for_job"):
        assert co.engine.wait("job_1", 5)["status"] == "completed"
    for resource, old, args in ((co.engine, "job", ("job_1",)), (co.engine, "workflow", ("w",)),
                                (co.engine, "cancel", ("job_1",)), (co.ip, "record", ("ip_1",)),
                                (co.ip, "certificate", ("cert_1",)), (co.ip, "checkpoint", ()), (co.ip, "keys", ())):
        with pytest.warns(DeprecationWarning):
            getattr(resource, old)(*args)
    with pytest.warns(DeprecationWarning, match="APIConnectionError"):
        from creativeops import TransportError
    assert TransportError is APIConnectionError
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        co.engine.list_verticals()  # the new names do not warn
        assert "TransportError" not in creativeops.__all__


def test_wait_for_job_gives_up_with_an_api_timeout_error(serve):
    srv = serve((200, {}, b'{"id": "job_1", "status": "processing"}'))
    with pytest.raises(APITimeoutError, match="still processing"):
        CreativeOps(KEY, srv.url).engine.wait_for_job("job_1", timeout=0.3, interval=0.1)


def test_catalog_time_filters(serve):
    srv = serve((200, {}, b'{"records": [], "next_page_token": ""}'))
    co = CreativeOps(KEY, srv.url)
    list(co.ip.catalog(registered_after=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
                       registered_before="2026-02-01T00:00:00Z"))
    path = srv.requests[0][1]
    assert "registered_after=2026-01-02T03%3A04%3A05.000000Z" in path and "registered_before=2026-02-01T00%3A00%3A00Z" in path
    with pytest.raises(ValueError, match="registered_after: a naive datetime"):
        list(co.ip.catalog(registered_after=datetime(2026, 1, 2)))
    with pytest.raises(TypeError, match="registered_before"):
        list(co.ip.catalog(registered_before=12))
