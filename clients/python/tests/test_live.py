"""The client against a live server: every flow a user starts with."""

import base64
import datetime
import hashlib
import http.server
import json
import queue
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest

from creativeops import (APIConnectionError, Conflict, CreativeOps, InvalidArgument, NotFound, PermissionDenied, RateLimited,
                         Unauthenticated, response_info, verify_webhook)


@pytest.fixture(scope="module")
def co(server):
    base, key = server
    return CreativeOps(api_key=key, base_url=base)


@pytest.fixture(scope="module")
def creator(co):
    return co.creators.create(name="Nova Reyes", email=f"nova-{uuid.uuid4().hex[:8]}@example.com", vertical="music",
                              metadata={"label": "Night Owl"})


CONTEXT = {"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-23"}


def test_create_and_get_a_creator(co, creator):
    assert creator["id"].startswith("cr_")
    got = co.creators.get(creator["id"])
    assert got["email"] == creator["email"] and got["metadata"] == {"label": "Night Owl"}


def test_list_follows_pages(co, creator):
    for i in range(3):
        co.creators.create(name=f"Page {i}", email=f"page-{i}-{uuid.uuid4().hex[:6]}@example.com", vertical="film")
    ids = [c["id"] for c in co.creators.list(vertical="film", page_size=2)]
    assert len(ids) >= 3 and len(set(ids)) == len(ids)


def test_run_a_workflow_sync_and_async(co):
    job = co.engine.run("music", "release-strategy", CONTEXT)
    assert job["status"] == "completed" and "strategy" in job["result"]
    queued = co.engine.run("music", "release-strategy", CONTEXT, async_=True)
    assert queued["status"] in ("queued", "processing", "completed")
    done = co.engine.wait_for_job(queued["id"], timeout=60)
    assert done["status"] == "completed" and done["result"]["strategy"] == job["result"]["strategy"]


def test_register_a_work_and_fetch_its_certificate(co, creator):
    content = uuid.uuid4().bytes
    record = co.ip.register(creator["id"], "The Long Night", "song", "sha256:" + hashlib.sha256(content).hexdigest())
    bundle = co.ip.get_certificate(record["certificate_id"])
    assert bundle["content_hash"] == record["content_hash"] and bundle["inclusion_proof"] is not None
    assert co.ip.get_certificate_token(record["certificate_id"])[:1] == b"\x30"  # a DER SEQUENCE


def test_a_webhook_delivery_verifies(co):
    received = queue.Queue()

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.put((body, dict(self.headers)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        hook = co.webhooks.create(f"http://127.0.0.1:{srv.server_port}/hook", ["creator.created"])
        co.creators.create(name="Hook", email=f"hook-{uuid.uuid4().hex[:8]}@example.com", vertical="music")
        body, headers = received.get(timeout=30)
        event = verify_webhook(body, headers, hook["secret"])
        assert event["type"] == "creator.created" and event["data"]["name"] == "Hook"
    finally:
        srv.shutdown()


def test_webhook_edit_disable_enable_and_rotation(co):
    received = queue.Queue()

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.put((body, dict(self.headers)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        hook = co.webhooks.create("http://127.0.0.1:9/nowhere", ["ip.registered"])
        old = hook["secret"]
        hook = co.webhooks.update(hook["id"], url=f"http://127.0.0.1:{srv.server_port}/hook", events=["creator.created"],
                                  description="CRM")
        assert hook["description"] == "CRM" and hook["events"] == ["creator.created"]
        assert co.webhooks.update(hook["id"], description="")["url"].endswith("/hook")
        with pytest.raises(InvalidArgument) as e:
            co.webhooks.update(hook["id"], url="ftp://example.com")
        assert "url" in e.value.fields

        assert co.webhooks.disable(hook["id"])["status"] == "disabled"
        co.creators.create(name="Paused", email=f"paused-{uuid.uuid4().hex[:8]}@example.com", vertical="music")
        with pytest.raises(queue.Empty):
            received.get(timeout=1)
        assert co.webhooks.enable(hook["id"])["status"] == "active"

        rotated = co.webhooks.rotate_secret(hook["id"])
        new = rotated["secret"]
        assert new.startswith("whsec_") and new != old
        co.creators.create(name="Rotated", email=f"rot-{uuid.uuid4().hex[:8]}@example.com", vertical="music")
        body, headers = received.get(timeout=30)
        assert verify_webhook(body, headers, new)["data"]["name"] == "Rotated"
        assert verify_webhook(body, headers, [new, old])["data"]["name"] == "Rotated"
        if rotated.get("previous_secret_expires_at"):
            # The server's grace period: signed with the old secret too.
            signature = next(v for k, v in headers.items() if k.lower() == "webhook-signature")
            assert len(signature.split()) == 2
            verify_webhook(body, headers, old)
        co.webhooks.delete(hook["id"])
    finally:
        srv.shutdown()


def test_events_list_get_and_after(co):
    made = [co.creators.create(name="Evt", email=f"evt-{uuid.uuid4().hex[:8]}@example.com", vertical="music")["id"]
            for _ in range(3)]
    first = next(co.events.list(types=["creator.created"], object_id=made[0]))
    assert first["type"] == "creator.created" and first["data"]["id"] == made[0] and first["object_id"] == made[0]
    assert co.events.get(first["id"])["id"] == first["id"]
    after = [e["object_id"] for e in co.events.list(types=["creator.created"], after=first["id"], page_size=1)]
    assert after[:2] == made[1:]
    with pytest.raises(NotFound):
        co.events.get("evt_01k3zw0e2f4g6h8j0k2m4n6p8q")
    recent = list(co.events.list(created_after=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5),
                                 types=["creator.created"]))
    assert {e["object_id"] for e in recent} >= set(made)


def test_key_changes_are_in_the_audit_log(co):
    key = co.keys.create("audited", ["creators:read"])
    co.keys.rotate(key["id"], grace_period_seconds=0)
    co.keys.revoke(key["id"])
    events = list(co.audit.list(target_id=key["id"], page_size=1))
    assert [e["action"] for e in events] == ["key.revoked", "key.rotated", "key.created"]
    assert all(e["origin"]["transport"] == "rest" and e["origin"]["user_agent"].startswith("creativeops-python/")
               for e in events)
    assert events[2]["details"] == {"name": "audited", "scopes": "creators:read"}
    assert key["secret"] not in str(events)
    assert [e["action"] for e in co.audit.list(target_id=key["id"], action="key.created")] == ["key.created"]


def _token(base, client_id, secret):
    """POST /oauth/token with client_secret_basic: (HTTP status, JSON body)."""
    cred = urllib.parse.quote(client_id, safe="") + ":" + urllib.parse.quote(secret, safe="")
    req = urllib.request.Request(base + "/oauth/token", data=b"grant_type=client_credentials", method="POST", headers={
        "Authorization": "Basic " + base64.b64encode(cred.encode()).decode(),
        "Content-Type": "application/x-www-form-urlencoded",
    })
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_oauth_clients_from_creation_to_deletion(co, server):
    base = server[0]
    oc = co.oauth_clients.create("py-" + uuid.uuid4().hex[:8], ["analytics:read"], token_lifetime_seconds=120)
    assert oc["id"].startswith("oc_") and oc["secret"].startswith("co_oauth_")
    assert oc["secret"].startswith(oc["prefix"])
    assert oc["scopes"] == ["analytics:read"] and oc["token_lifetime"] == "120s"
    assert oc.get("revoked_at") is None

    listed = [c for c in co.oauth_clients.list(page_size=1) if c["id"] == oc["id"]]
    assert len(listed) == 1 and "secret" not in listed[0]
    got = co.oauth_clients.get(oc["id"])
    assert got["name"] == oc["name"] and "secret" not in got

    # The secret buys a bearer token that calls the API within the client's scopes.
    status, body = _token(base, oc["id"], oc["secret"])
    assert status == 200, body
    assert body["token_type"].lower() == "bearer" and body["scope"] == "analytics:read"
    first = CreativeOps(api_key=body["access_token"], base_url=base)
    assert first.analytics.usage()["granularity"] == "hour"
    with pytest.raises(PermissionDenied) as denied:
        first.creators.create("N", f"n-{uuid.uuid4().hex[:8]}@example.com", "music")
    assert denied.value.reason == "MISSING_SCOPE"

    # Rotation without grace: the old secret stops at once, the new one works.
    rotated = co.oauth_clients.rotate(oc["id"], grace_period_seconds=0)
    assert rotated["id"] == oc["id"] and rotated["secret"].startswith("co_oauth_") and rotated["secret"] != oc["secret"]
    status, body = _token(base, oc["id"], oc["secret"])
    assert status == 401 and body["error"] == "invalid_client"
    status, body = _token(base, oc["id"], rotated["secret"])
    assert status == 200, body
    second = CreativeOps(api_key=body["access_token"], base_url=base)
    assert first.analytics.usage()["granularity"] == "hour"  # issued before the rotation, still valid

    # Deletion: the secret is refused at once, the tokens within a second.
    assert co.oauth_clients.delete(oc["id"]) is None
    assert co.oauth_clients.get(oc["id"])["revoked_at"]
    assert _token(base, oc["id"], rotated["secret"])[0] == 401
    deadline = time.monotonic() + 3
    while True:
        try:
            second.analytics.usage()
        except Unauthenticated:
            break
        assert time.monotonic() < deadline, "token still accepted 3 s after its client was deleted"
        time.sleep(0.1)

    with pytest.raises(InvalidArgument) as bad:
        co.oauth_clients.create("x", [])
    assert "scopes" in bad.value.fields
    with pytest.raises(InvalidArgument) as bad:
        co.oauth_clients.create("x", ["creators:read"], token_lifetime_seconds=5)
    assert "token_lifetime" in bad.value.fields
    with pytest.raises(NotFound):
        co.oauth_clients.get("oc_01k0000000000000000000000")


def test_errors_are_typed(co, server):
    with pytest.raises(NotFound) as e:
        co.creators.get("cr_01k0000000000000000000000")
    assert e.value.http_status == 404 and e.value.request_id.startswith("req_")
    with pytest.raises(Unauthenticated):
        CreativeOps(api_key="co_live_nope", base_url=server[0]).creators.get("cr_x")


def test_a_rate_limited_request_is_retried(co, server):
    key = co.keys.create("slow", ["creators:read"], rate_limit={"requests_per_second": 1, "burst": 1})
    slow = CreativeOps(api_key=key["secret"], base_url=server[0], max_retries=2)
    for _ in range(3):  # the 2nd and 3rd wait for the bucket (Retry-After: 1)
        assert isinstance(list(slow.creators.list()), list)
    impatient = CreativeOps(api_key=key["secret"], base_url=server[0], max_retries=0)
    with pytest.raises(RateLimited) as e:
        for _ in range(3):
            list(impatient.creators.list())
    assert e.value.retry_after and e.value.retry_after >= 1


def test_a_long_retry_after_is_not_waited_for(co, server):
    key = co.keys.create("glacial", ["creators:read"], rate_limit={"requests_per_second": 0.01, "burst": 1})
    glacial = CreativeOps(api_key=key["secret"], base_url=server[0], max_retry_wait=5)
    list(glacial.creators.list())
    with pytest.raises(RateLimited) as e:  # the next token is 100 s away
        list(glacial.creators.list())
    assert e.value.retry_after >= 50


def test_an_idempotency_key_makes_a_repeated_post_one_creation(co):
    key = "py-" + uuid.uuid4().hex
    email = f"idem-{uuid.uuid4().hex[:8]}@example.com"
    first = co.creators.create("Idem", email, "music", idempotency_key=key)
    again = co.creators.create("Idem", email, "music", idempotency_key=key)  # replayed, not a 409 duplicate
    assert again["id"] == first["id"]
    assert response_info(again).request_id != response_info(first).request_id
    with pytest.raises(Conflict):  # without the key it is a new request: a duplicate email
        co.creators.create("Idem", email, "music")


def test_response_info_and_per_call_headers_live(co):
    verticals = co.engine.list_verticals(headers={"X-Request-Id": "req_python_client_test"})
    info = response_info(verticals)
    assert info.request_id == "req_python_client_test"  # the server echoes a valid incoming id
    assert info.rate_limit is not None and 0 <= info.rate_limit.remaining <= info.rate_limit.limit
    assert {v["key"] for v in verticals} >= {"music", "film"}
    calendars = co.engine.list_calendars()
    assert calendars["countries"] and "EUR" in calendars["currencies"]


def test_catalog_registration_time_filters(co, creator):
    before = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=2)
    record = co.ip.register(creator["id"], "Dated", "song", "sha256:" + hashlib.sha256(uuid.uuid4().bytes).hexdigest())
    ids = lambda **f: [r["id"] for r in co.ip.catalog(creator_id=creator["id"], **f)]  # noqa: E731
    assert record["id"] in ids(registered_after=before)
    assert record["id"] not in ids(registered_before=before)
    assert record["id"] not in ids(registered_after=datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1))
    with pytest.raises(InvalidArgument) as e:
        list(co.ip.catalog(registered_after="yesterday"))
    assert "registered_after" in str(e.value)


def test_consistency_proof_between_checkpoints(co, creator):
    old = co.ip.get_checkpoint()
    co.ip.register(creator["id"], "Grows", "song", "sha256:" + hashlib.sha256(uuid.uuid4().bytes).hexdigest())
    new = co.ip.get_checkpoint()
    proof = co.ip.get_consistency_proof(int(old["tree_size"]), int(new["tree_size"]))
    assert int(proof["from"]) == int(old["tree_size"]) and int(proof["to"]) == int(new["tree_size"])


def test_a_stopped_server_is_a_connection_error(server):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(APIConnectionError) as e:
        CreativeOps(api_key=server[1], base_url=f"http://127.0.0.1:{port}", max_retries=0).creators.get("cr_x")
    assert e.value.http_status == 0 and e.value.status == "UNAVAILABLE"


def test_a_creator_is_updated_found_exported_and_erased(co):
    email = f"Ada-{uuid.uuid4().hex[:8]}@Example.com"
    c = co.creators.create(name="Ada Quinn", email=email, vertical="music", metadata={"label": "Night Owl", "tier": "gold"})
    assert c["revision"] == 1
    found = co.creators.find_by_email(email.lower())
    assert found is not None and found["id"] == c["id"]
    assert co.creators.find_by_email("nobody-" + email) is None
    since = list(co.creators.list(created_after=c["created_at"], email=email))
    assert [x["id"] for x in since] == [c["id"]]

    u = co.creators.update(c["id"], name="Ada Lovelace", metadata={"tier": None, "city": "Lyon"}, revision=1)
    assert u["name"] == "Ada Lovelace" and u["email"] == email and u["revision"] == 2
    assert u["metadata"] == {"label": "Night Owl", "city": "Lyon"}
    with pytest.raises(Conflict) as stale:
        co.creators.update(c["id"], name="Stale", revision=1)
    assert stale.value.reason == "REVISION_MISMATCH"
    cleared = co.creators.update(c["id"], clear_metadata=True)
    assert cleared["metadata"] is None and cleared["name"] == "Ada Lovelace"

    doc = co.creators.export(c["id"])
    assert doc["creator"]["id"] == c["id"]
    assert {e["type"] for e in doc["events"]} >= {"creator.created", "creator.updated"}

    co.creators.erase(c["id"])
    with pytest.raises(NotFound):
        co.creators.get(c["id"])
    with pytest.raises(NotFound):
        co.creators.export(c["id"])
    assert co.creators.find_by_email(email) is None
