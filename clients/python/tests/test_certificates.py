"""verify_certificate against a live server's real certificates, and
against tampered bundles and keys: each check fails on its own tampering."""

import base64
import copy
import hashlib
import json
import time
import uuid

import pytest

from creativeops import CertificateVerificationError, CreativeOps, verify_certificate


@pytest.fixture(scope="module")
def co(server):
    base, key = server
    return CreativeOps(api_key=key, base_url=base)


@pytest.fixture(scope="module")
def registered(co):
    """(work, record, bundle, keys, the bundle of a work registered a second
    later) for works registered in a log of at least three entries, so
    inclusion proofs are not empty."""
    creator = co.creators.create(name="Cert", email=f"cert-{uuid.uuid4().hex[:8]}@example.com", vertical="music")
    works, records = [], []
    for i in range(3):
        work = f"work {i} {uuid.uuid4()}".encode()
        works.append(work)
        records.append(co.ip.register(creator["id"], f"Work {i}", "song", hashlib.sha256(work).hexdigest(),
                                      description="line one\nline \"two\""))
    bundle = co.ip.get_certificate(records[1]["certificate_id"])
    time.sleep(1.1)  # token times have whole seconds
    later = co.ip.register(creator["id"], "Later", "song", hashlib.sha256(uuid.uuid4().bytes).hexdigest())
    other = co.ip.get_certificate(later["certificate_id"])
    return works[1], records[1], bundle, co.ip.get_keys(), other


def failed(bundle, keys, work=None):
    with pytest.raises(CertificateVerificationError) as e:
        verify_certificate(bundle, keys, work)
    return e.value.failed


def test_a_live_certificate_verifies(co, registered):
    work, record, bundle, keys, _ = registered
    claims = verify_certificate(bundle, keys, work)
    assert claims["id"] == record["id"] and claims["content_hash"] == record["content_hash"]
    assert claims["title"] == "Work 1" and claims["description"] == "line one\nline \"two\""
    assert claims["timestamp"].startswith(record["timestamp"][:19]) and claims["token_time"] == record["timestamp"][:19] + "Z"
    assert claims["log_index"] == int(record["log_index"]) and claims["tree_size"] >= 2
    assert claims["log_origin"] == keys["log_keys"][0]["origin"]
    names = [c["name"] for c in claims["checks"]]
    assert names == ["bundle_format", "work_hash", "record", "content_hash", "timestamp_token", "timestamp_imprint",
                     "timestamp_time", "checkpoint_signature", "log_inclusion", "trust_anchors"]
    assert all(c["ok"] and not c["skipped"] for c in claims["checks"])
    # The convenience fetches the bundle and the keys; a saved bundle.json verifies too.
    assert co.ip.verify_certificate(record["certificate_id"], work=work)["id"] == record["id"]
    assert verify_certificate(json.dumps(bundle), keys)["id"] == record["id"]
    assert co.ip.verify_certificate(record["certificate_id"], keys=keys)["checks"][1]["skipped"]


def b64(b):
    return base64.b64encode(b).decode()


def flip_b64(s, at):
    raw = bytearray(base64.b64decode(s))
    raw[at] ^= 1
    return b64(bytes(raw))


def test_each_tampering_fails_its_check(registered):
    work, _, bundle, keys, other = registered

    def tampered(**changes):
        b = copy.deepcopy(bundle)
        b.update(changes)
        return b

    assert failed(bundle, keys, work + b"!") == ["work_hash"]
    assert failed(tampered(format="creativeops/certificate/v0"), keys) == ["bundle_format"]
    # What people read must be what was signed.
    assert failed(tampered(title="Another Title"), keys) == ["record"]
    assert failed(tampered(timestamp="2020-01-01T00:00:00Z"), keys) == ["record"]
    assert failed(tampered(content_hash="sha256:" + "0" * 64), keys) == ["content_hash"]
    # Signed bytes changed: the token and the log no longer cover them.
    record = json.loads(base64.b64decode(bundle["record"]))
    record["title"] = "Another Title"
    forged = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert failed(tampered(record=b64(forged), title="Another Title"), keys) == ["timestamp_imprint", "log_inclusion"]
    spaced = base64.b64decode(bundle["record"]).replace(b'","', b'", "', 1)  # same JSON, not canonical
    assert failed(tampered(record=b64(spaced)), keys)[0] == "record"
    # The timestamp token: its signature, and whose record it stamps.
    token = base64.b64decode(bundle["token"])
    token_failed = ["timestamp_token", "timestamp_imprint", "timestamp_time"]  # the latter two not checked
    assert failed(tampered(token=flip_b64(bundle["token"], len(token) - 5)), keys) == token_failed
    assert failed(tampered(token=other["token"]), keys) == ["timestamp_imprint", "timestamp_time"]
    assert failed(tampered(tsa_policy_oid="1.2.3.4"), keys) == token_failed
    # The checkpoint: its signature, its key and what it says.
    cp = bundle["checkpoint"]
    cp_failed = ["checkpoint_signature", "log_inclusion"]  # the latter not checked
    sig_line = cp.rstrip("\n").rsplit("\n", 1)[1]
    name, sig = sig_line[2:].split(" ")
    assert failed(tampered(checkpoint=cp.replace(sig, flip_b64(sig, 20))), keys) == cp_failed
    size = cp.split("\n")[1]
    assert failed(tampered(checkpoint=cp.replace("\n" + size + "\n", "\n%d\n" % (int(size) + 1), 1)), keys) == cp_failed
    # The inclusion proof and position.
    proof = list(bundle["inclusion_proof"])
    assert proof, "the log should hold several entries"
    proof[0] = flip_b64(proof[0], 0)
    assert failed(tampered(inclusion_proof=proof), keys) == ["log_inclusion"]
    assert failed(tampered(inclusion_proof=bundle["inclusion_proof"][1:]), keys) == ["log_inclusion"]
    assert failed(tampered(log_index=str((int(bundle["log_index"]) + 1) % int(bundle["tree_size"]))), keys) == ["log_inclusion"]
    assert failed(tampered(tree_size=str(int(bundle["tree_size"]) + 1)), keys) == ["log_inclusion"]


def test_the_keys_are_pinned(registered):
    _, _, bundle, keys, _ = registered
    # A bundle carrying other keys than the service's is refused, even when
    # consistent with itself.
    no_log = dict(keys, log_keys=[])
    assert failed(bundle, no_log) == ["trust_anchors"]
    other_root = dict(keys, tsa_root_pem=keys["tsa_certificate_pem"])
    assert failed(bundle, other_root) == ["trust_anchors"]
    # A bundle whose own root is not the TSA's issuer: the token's chain fails.
    b = dict(bundle, tsa_root_pem=keys["tsa_certificate_pem"])
    assert failed(b, dict(keys, tsa_root_pem=keys["tsa_certificate_pem"]))[0] == "timestamp_token"
    # A log key of the right name but another key: its key id no longer matches.
    name, key_id, key = bundle["log_verifier_key"].split("+", 2)  # the base64 key may hold "+"
    wrong = "+".join([name, key_id, flip_b64(key, 5)])
    assert failed(dict(bundle, log_verifier_key=wrong), dict(keys, log_keys=[{"verifier_key": wrong}])) == \
        ["checkpoint_signature", "log_inclusion"]
    # The right key under a key id that is not its own.
    bad_id = "+".join([name, "00000000", key])
    assert failed(dict(bundle, log_verifier_key=bad_id), dict(keys, log_keys=[{"verifier_key": bad_id}])) == \
        ["checkpoint_signature", "log_inclusion"]
    with pytest.raises(TypeError, match="keys"):
        verify_certificate(bundle, None)


def test_the_token_checks_name_what_failed(registered):
    from creativeops import _rfc3161

    _, _, bundle, keys, _ = registered
    token = base64.b64decode(bundle["token"])
    root = bundle["tsa_root_pem"]
    assert _rfc3161.verify_token(token, root).policy == bundle["tsa_policy_oid"]

    def fails(der, pem=root):
        with pytest.raises(_rfc3161.TokenError) as e:
            _rfc3161.verify_token(der, pem)
        return str(e.value)

    def flip_at(i):
        b = bytearray(token)
        b[i] ^= 1
        return bytes(b)

    # The TSA's name is in the signed TSTInfo first, in its embedded certificate last.
    assert "message digest does not match" in fails(flip_at(token.find(b"registry TSA")))
    assert "ESS attribute does not match" in fails(flip_at(token.rfind(b"registry TSA")))
    assert "signature does not verify" in fails(flip_at(len(token) - 5))
    assert "not issued by the pinned root" in fails(token, keys["tsa_certificate_pem"])
    assert "no root certificate" in fails(token, "not a PEM")
    assert "DER" in fails(token[:-1])
