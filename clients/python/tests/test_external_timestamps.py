"""check_external_timestamps against a certificate issued by the Go server
with tokens from real RFC 3161 authorities (`openssl ts -reply`, each with
a CA of its own): fixtures/external/, written by the Go test (make client-fixtures)
TestExternalTimestampAuthorities (cmd/creativeops) with
CREATIVEOPS_WRITE_FIXTURES=1."""

import base64
import copy
import hashlib
import json
import pathlib

from creativeops import _rfc3161, check_external_timestamps

FIX = pathlib.Path(__file__).parent / "fixtures" / "external"


def load():
    bundle = json.loads((FIX / "bundle.json").read_text())
    cas = [(FIX / f"tsa{i}-ca.pem").read_text() for i in (1, 2, 3)]
    return bundle, cas


def test_tokens_verify_with_their_authorities_cas():
    bundle, (ca1, ca2, _) = load()
    checks = check_external_timestamps(bundle, [ca1, ca2])
    assert [c["name"] for c in checks] == ["external_timestamp[1]", "external_timestamp[2]", "external_timestamp[3]"]
    assert checks[0]["ok"] and not checks[0]["skipped"], checks[0]
    assert checks[1]["ok"] and not checks[1]["skipped"], checks[1]
    assert "within 300 s of the record's time" in checks[0]["detail"]
    assert checks[2]["ok"] and checks[2]["skipped"] and "pending" in checks[2]["detail"]


def test_a_token_needs_its_own_authoritys_ca():
    bundle, (ca1, ca2, ca3) = load()
    only_first = check_external_timestamps(bundle, [ca1])
    assert only_first[0]["ok"] and not only_first[1]["ok"]
    assert "not issued by the pinned root" in only_first[1]["detail"]
    never_seen = check_external_timestamps(bundle, [ca3])
    assert not never_seen[0]["ok"] and not never_seen[1]["ok"]


def test_without_cas_nothing_is_reported_verified():
    bundle, _ = load()
    checks = check_external_timestamps(bundle, [])
    assert all(c["ok"] and c["skipped"] for c in checks)
    assert checks[0]["detail"].startswith("UNCHECKED")


def test_a_changed_record_or_token_fails():
    bundle, (ca1, ca2, _) = load()
    changed = copy.deepcopy(bundle)
    rec = base64.b64decode(changed["record"]).replace(b'"title":"', b'"title":"X', 1)
    changed["record"] = base64.b64encode(rec).decode()
    checks = check_external_timestamps(changed, [ca1, ca2])
    assert not checks[0]["ok"] and "record hashes to" in checks[0]["detail"]
    broken = copy.deepcopy(bundle)
    token = bytearray(base64.b64decode(broken["external_timestamps"][0]["token"]))
    token[-5] ^= 1  # inside the signature
    broken["external_timestamps"][0]["token"] = base64.b64encode(bytes(token)).decode()
    assert not check_external_timestamps(broken, [ca1, ca2])[0]["ok"]
    shown = copy.deepcopy(bundle)
    shown["external_timestamps"][0]["gen_time"] = "2001-01-01T00:00:00Z"
    assert "bundle shows" in check_external_timestamps(shown, [ca1, ca2])[0]["detail"]


# An authority as real ones are: RSA (PKCS#1 v1.5, SHA-256) through an
# intermediate CA that the token embeds; only its root is given.


def load_rsa():
    bundle = json.loads((FIX / "bundle-rsa.json").read_text())
    return bundle, (FIX / "tsa4-ca.pem").read_text(), (FIX / "tsa3-ca.pem").read_text()


def _der(tag: int, content: bytes) -> bytes:
    n = len(content)
    if n < 0x80:
        return bytes([tag, n]) + content
    length = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + content


def _rebuild(token: bytes, keep) -> bytes:
    """The token with only the SignedData certificates keep accepts,
    everything else unchanged."""
    resp = _rfc3161._seq(_rfc3161._one(token))
    ci = _rfc3161._seq(resp[1])
    sd = _rfc3161._seq(_rfc3161._one(ci[1].content))
    assert sd[3].tag == 0xA0
    certs = _rfc3161._items(sd[3].content)
    kept = [c.raw for c in certs if keep(_rfc3161._parse_cert(c.raw))]
    sd_raw = _der(0x30, b"".join([t.raw for t in sd[:3]] + [_der(0xA0, b"".join(kept))] + [t.raw for t in sd[4:]]))
    ci_raw = _der(0x30, ci[0].raw + _der(0xA0, sd_raw) + b"".join(t.raw for t in ci[2:]))
    return _der(0x30, resp[0].raw + ci_raw + b"".join(t.raw for t in resp[2:]))


def _with_token(bundle, token: bytes):
    changed = copy.deepcopy(bundle)
    changed["external_timestamps"][0]["token"] = base64.b64encode(token).decode()
    return changed


def test_an_rsa_token_through_an_intermediate_verifies_with_the_root():
    bundle, root, _ = load_rsa()
    [check] = check_external_timestamps(bundle, [root])
    assert check["ok"] and not check["skipped"], check
    assert "signed by 'Delta TSA'" in check["detail"]
    assert "within 300 s of the record's time" in check["detail"]
    token = base64.b64decode(bundle["external_timestamps"][0]["token"])
    info = _rfc3161.verify_external_token(token, [root])
    assert info.digest == hashlib.sha256(base64.b64decode(bundle["record"])).digest()


def test_an_rsa_token_fails_with_an_unrelated_ca():
    bundle, _, unrelated = load_rsa()
    [check] = check_external_timestamps(bundle, [unrelated])
    assert not check["ok"] and "not issued by the pinned root" in check["detail"], check


def test_an_rsa_token_fails_without_its_intermediate():
    bundle, root, _ = load_rsa()
    token = base64.b64decode(bundle["external_timestamps"][0]["token"])
    # The rebuilt token with every certificate still verifies: the surgery itself is sound.
    assert check_external_timestamps(_with_token(bundle, _rebuild(token, lambda c: True)), [root])[0]["ok"]
    assert len(_embedded(token)) == 2
    stripped = _rebuild(token, lambda c: not _rfc3161._ca_constraints(c)[0])
    assert len(_embedded(stripped)) == 1
    [check] = check_external_timestamps(_with_token(bundle, stripped), [root])
    assert not check["ok"] and "not issued by the pinned root" in check["detail"], check


def test_an_rsa_token_with_a_flipped_signature_byte_fails():
    bundle, root, _ = load_rsa()
    token = bytearray(base64.b64decode(bundle["external_timestamps"][0]["token"]))
    token[-5] ^= 1  # inside the SignerInfo's RSA signature, the token's last field
    [check] = check_external_timestamps(_with_token(bundle, bytes(token)), [root])
    assert not check["ok"] and "signature does not verify" in check["detail"], check


def test_an_rsa_certificate_signature_is_checked():
    # A flipped byte in the intermediate's own signature (by the root).
    bundle, root, _ = load_rsa()
    token = base64.b64decode(bundle["external_timestamps"][0]["token"])
    certs = [_rfc3161._parse_cert(c) for c in _embedded(token)]
    inter = next(c for c in certs if _rfc3161._ca_constraints(c)[0])
    bad = bytearray(inter.raw)
    bad[-3] ^= 1
    [check] = check_external_timestamps(_with_token(bundle, token.replace(inter.raw, bytes(bad))), [root])
    assert not check["ok"] and "intermediate CA certificate is not issued by the pinned root" in check["detail"], check


def _embedded(token: bytes):
    resp = _rfc3161._seq(_rfc3161._one(token))
    sd = _rfc3161._seq(_rfc3161._one(_rfc3161._seq(resp[1])[1].content))
    return [c.raw for c in _rfc3161._items(sd[3].content)]


def test_an_rsa_token_through_an_intermediate_that_is_not_a_ca_fails():
    bundle, _, _ = load_rsa()
    root = (FIX / "tsa5-ca.pem").read_text()
    [check] = check_external_timestamps(_with_token(bundle, (FIX / "rsa-notca.tsr").read_bytes()), [root])
    assert not check["ok"] and "intermediate certificate in the token is not a CA" in check["detail"], check


def test_an_rsa_tsa_certificate_must_verify_with_its_intermediates_key():
    # The intermediate with another public key (a byte of its modulus
    # flipped): the TSA certificate's signature no longer verifies with it.
    bundle, root, _ = load_rsa()
    token = base64.b64decode(bundle["external_timestamps"][0]["token"])
    inter = next(c for c in map(_rfc3161._parse_cert, _embedded(token)) if _rfc3161._ca_constraints(c)[0])
    modulus = inter.rsa_key[0].to_bytes((inter.rsa_key[0].bit_length() + 7) // 8, "big")
    at = inter.raw.index(modulus) + len(modulus) // 2
    bad = bytearray(inter.raw)
    bad[at] ^= 1
    [check] = check_external_timestamps(_with_token(bundle, token.replace(inter.raw, bytes(bad))), [root])
    assert not check["ok"] and "does not verify with its intermediate CA" in check["detail"], check
