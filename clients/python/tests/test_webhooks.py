import base64
import hashlib
import hmac
import json

import pytest

from creativeops import WebhookVerificationError, verify_webhook

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef01234567").decode()
BODY = json.dumps({"id": "evt_1", "type": "webhook.test", "data": {}}).encode()


def signed(body=BODY, secret_key=b"0123456789abcdef01234567", msg_id="msg_1", stamp=1_800_000_000):
    mac = hmac.new(secret_key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    return {"Webhook-Id": msg_id, "Webhook-Timestamp": str(stamp), "Webhook-Signature": "v1," + base64.b64encode(mac).decode()}


def test_accepts_a_signed_delivery():
    event = verify_webhook(BODY, signed(), SECRET, now=1_800_000_010)
    assert event["id"] == "evt_1"


def test_accepts_one_of_several_signatures_and_raw_secrets():
    headers = signed(secret_key=b"raw-secret")
    headers["Webhook-Signature"] = "v1,bm9wZQ== " + headers["Webhook-Signature"]
    assert verify_webhook(BODY.decode(), headers, "raw-secret", now=1_800_000_000)["type"] == "webhook.test"


@pytest.mark.parametrize("change", ["body", "secret", "id", "old", "future", "missing"])
def test_refuses_what_was_not_signed_so(change):
    headers, body, secret, now = signed(), BODY, SECRET, 1_800_000_000
    if change == "body":
        body = BODY.replace(b"evt_1", b"evt_2")
    elif change == "secret":
        secret = "whsec_" + base64.b64encode(b"another key of 24 bytes!").decode()
    elif change == "id":
        headers["Webhook-Id"] = "msg_2"
    elif change == "old":
        now += 301
    elif change == "future":
        now -= 301
    elif change == "missing":
        del headers["Webhook-Signature"]
    with pytest.raises(WebhookVerificationError):
        verify_webhook(body, headers, secret, now=now)


def test_event_types_match_the_published_schema():
    """The TypedDicts of WebhookEvent are hand-kept: each declared event type
    (gen/openapi/webhooks.json, generated from the protos) has one, whose
    type is that Literal and whose data is the payload's TypedDict with the
    schema's fields."""
    import pathlib
    import typing

    from creativeops import webhooks

    doc = json.loads((pathlib.Path(__file__).parents[3] / "gen" / "openapi" / "webhooks.json").read_text())
    schemas = doc["components"]["schemas"]
    by_type = {}
    for event in typing.get_args(webhooks.WebhookEvent):
        hints = typing.get_type_hints(event)
        (literal,) = typing.get_args(hints["type"])
        by_type[literal] = hints
    assert sorted(by_type) == sorted(doc["webhooks"]), "WebhookEvent's types are not the declared ones"
    for typ, hook in doc["webhooks"].items():
        envelope = schemas[hook["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]]
        payload = envelope["properties"]["data"]["$ref"].split("/")[-1]
        hints = by_type[typ]
        assert set(hints) == set(envelope["properties"]), typ
        data = hints["data"]
        assert data.__name__ == payload, f"{typ}: data is {data.__name__}, the server sends {payload}"
        assert set(typing.get_type_hints(data)) == set(schemas[payload]["properties"]), f"{typ}: {payload}'s fields drifted"


def test_several_secrets_any_one_verifies():
    import base64 as _b64
    import hashlib as _hl
    import hmac as _hm
    import os as _os
    from creativeops import verify_webhook as _verify, WebhookVerificationError as _Err

    old, new = _os.urandom(24), _os.urandom(24)
    body = b'{"id":"evt_1","type":"webhook.test","timestamp":"2026-01-01T00:00:00.000Z","data":{}}'
    stamp = "1700000000"

    def sig(key):
        return "v1," + _b64.b64encode(_hm.new(key, b"evt_1." + stamp.encode() + b"." + body, _hl.sha256).digest()).decode()

    w = lambda k: "whsec_" + _b64.b64encode(k).decode()
    both = {"webhook-id": "evt_1", "webhook-timestamp": stamp, "webhook-signature": sig(new) + " " + sig(old)}
    only_new = dict(both, **{"webhook-signature": sig(new)})
    # During a rotation's grace period a delivery carries both signatures:
    # either secret verifies it.
    _verify(body, both, w(old), now=1700000000)
    _verify(body, both, w(new), now=1700000000)
    # A receiver holding both secrets verifies a delivery signed by either.
    _verify(body, only_new, [w(old), w(new)], now=1700000000)
    with pytest.raises(_Err):
        _verify(body, only_new, w(old), now=1700000000)
    with pytest.raises(_Err):
        _verify(body, only_new, [], now=1700000000)
