"""check_external_timestamps against a certificate issued by the Go server
with tokens from real RFC 3161 authorities (`openssl ts -reply`, each with
a CA of its own): fixtures/external/, written by the Go test
TestExternalTimestampAuthorities (cmd/creativeops) with
CREATIVEOPS_WRITE_FIXTURES=1."""

import base64
import copy
import json
import pathlib

from creativeops import check_external_timestamps

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
