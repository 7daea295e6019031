"""Offline verification of IP registry certificates, with the standard
library only: what `creativeops verify --bundle FILE --root ... --log-key ...`
checks (ipreg/bundle.go), see docs/ip-registry.md.

    from creativeops import verify_certificate
    claims = verify_certificate(co.ip.get_certificate(cert_id), co.ip.get_keys())
    claims["title"], claims["content_hash"], claims["timestamp"]

A bundle carries its own keys, so a forger could build one that agrees
with itself: the keys argument pins the ones obtained from the service
(GET /v1/ip/keys, kept from earlier), and the bundle must use them.
"""

from __future__ import annotations

import base64
import binascii
import calendar
import hashlib
import json
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _ed25519, _rfc3161

__all__ = ["CertificateVerificationError", "check_external_timestamps", "verify_certificate"]

BUNDLE_FORMAT = "creativeops/certificate/v1"
RECORD_FORMAT = "creativeops/record/v1"
_RECORD_FIELDS = ("certificate_id", "content_hash", "creator_id", "description", "format", "id",
                  "organization_id", "timestamp", "title", "type")
_SHOWN_FIELDS = ("id", "organization_id", "creator_id", "title", "type", "description", "certificate_id")


class CertificateVerificationError(Exception):
    """A certificate failed verification. Not an API error: the bundle (or
    the keys given) do not prove what they claim.

    Attributes:
        failed: the names of the failed checks ("checkpoint_signature", ...).
        checks: every check, as dicts with name, ok, skipped and detail.
    """

    def __init__(self, checks: List[Dict[str, Any]]) -> None:
        self.checks = checks
        self.failed = [c["name"] for c in checks if not c["ok"]]
        details = "; ".join(f"{c['name']}: {c['detail']}" for c in checks if not c["ok"])
        super().__init__(f"certificate verification failed: {details}")


def verify_certificate(
    certificate: Union[Mapping[str, Any], str, bytes],
    keys: Mapping[str, Any],
    work: Optional[bytes] = None,
) -> Dict[str, Any]:
    """Verifies a certificate bundle offline and returns what it proves.

    certificate: the bundle as GET /v1/ip/certificates/{id} returns it
    (co.ip.get_certificate), or its JSON text (a saved bundle.json).
    keys: the service's published keys as GET /v1/ip/keys returns them
    (co.ip.get_keys): the bundle's TSA root must be keys["tsa_root_pem"]
    and its log key one of keys["log_keys"] (retired ones included).
    work: the registered file's bytes, to check its SHA-256 too.

    Checks: the bundle format; the work's hash; that the record bytes are
    canonical and match the displayed fields; the content hash; the RFC 3161
    token's ECDSA signature, its certificate chain to the root, the TSA
    certificate's critical timeStamping usage, the ESS binding, the policy,
    the message imprint (SHA-256 of the record) and the time (the
    record's); the checkpoint's Ed25519 signed-note signature and its key
    id; the RFC 6962 inclusion proof of the record in that checkpoint's
    tree; and that the keys are the pinned ones.

    Returns the signed record's fields (id, organization_id, creator_id,
    title, type, description, timestamp, certificate_id, content_hash)
    plus log_origin, log_index, tree_size, token_time, token_serial and
    checks (every check with its detail). Raises
    CertificateVerificationError naming each failed check.
    """
    checks: List[Dict[str, Any]] = []

    def add(name: str, error: Optional[str], detail: str = "", skipped: bool = False) -> bool:
        checks.append({"name": name, "ok": error is None, "skipped": skipped, "detail": error if error else detail})
        return error is None

    def not_checked(name: str, because: str) -> None:
        add(name, f"not checked: {because} failed")

    if isinstance(certificate, (str, bytes)):
        try:
            certificate = json.loads(certificate)
        except ValueError as e:
            raise CertificateVerificationError([{"name": "bundle_format", "ok": False, "skipped": False,
                                                 "detail": f"bundle is not JSON: {e}"}]) from None
    if not isinstance(certificate, Mapping):
        raise TypeError("certificate: want the bundle (a mapping) or its JSON text")
    if not isinstance(keys, Mapping):
        raise TypeError("keys: want the service's keys as GET /v1/ip/keys returns them (co.ip.get_keys())")
    b = certificate

    fmt = b.get("format")
    add("bundle_format", None if fmt == BUNDLE_FORMAT else f"unsupported bundle format {fmt!r}, want {BUNDLE_FORMAT!r}",
        str(fmt))

    record_bytes = _bytes_field(b, "record")
    rec, rec_err = _parse_record(record_bytes)

    # The file in hand is the registered one.
    if work is None:
        add("work_hash", None, "skipped: no work supplied", skipped=True)
    elif rec is None:
        not_checked("work_hash", "record")
    else:
        got = "sha256:" + hashlib.sha256(work).hexdigest()
        add("work_hash", None if got == rec["content_hash"] else f"work hashes to {got}, record says {rec['content_hash']}",
            "work matches " + got)

    # The record bytes parse, and the fields shown to people match them.
    if rec is None:
        add("record", rec_err)
    else:
        diffs = [f"{k}: record {rec[k]!r}, bundle {b.get(k)!r}" for k in _SHOWN_FIELDS if rec[k] != (b.get(k) or "")]
        if _parse_time(rec["timestamp"]) != _parse_time(b.get("timestamp")):
            diffs.append(f"timestamp: record {rec['timestamp']}, bundle {b.get('timestamp')}")
        add("record", "displayed fields differ from signed record: " + "; ".join(diffs) if diffs else None,
            "record bytes are canonical and match the displayed fields")

    # The advertised content hash is the signed one.
    if rec is None:
        not_checked("content_hash", "record")
    elif rec["content_hash"] != b.get("content_hash"):
        add("content_hash", f"record has {rec['content_hash']!r}, bundle shows {b.get('content_hash')!r}")
    elif not re.fullmatch(r"sha256:[0-9a-f]{64}", rec["content_hash"]):
        add("content_hash", f"content hash {rec['content_hash']!r} is not sha256:<64 lowercase hex>")
    else:
        add("content_hash", None, rec["content_hash"])

    # The TSA signed SHA-256(record) at the record's time.
    token: Optional[_rfc3161.TokenInfo] = None
    try:
        token = _rfc3161.verify_token(_bytes_field(b, "token"), str(b.get("tsa_root_pem") or ""))
        if token.policy != b.get("tsa_policy_oid"):
            raise _rfc3161.TokenError(f"token policy {token.policy}, bundle says {b.get('tsa_policy_oid')}")
        add("timestamp_token", None, f"signed by {token.signer_name!r} under policy {token.policy}, serial {token.serial}")
    except (_rfc3161.TokenError, ValueError) as e:
        add("timestamp_token", str(e))
        token = None
    if token is None:
        not_checked("timestamp_imprint", "timestamp_token")
        not_checked("timestamp_time", "timestamp_token")
    else:
        digest = hashlib.sha256(record_bytes or b"").digest()
        add("timestamp_imprint", None if token.digest == digest else
            f"token stamps {token.digest.hex()}, record hashes to {digest.hex()}", "token stamps sha256(record) = " + digest.hex())
        if rec is None:
            not_checked("timestamp_time", "record")
        else:
            rec_time = _parse_time(rec["timestamp"])
            ok = rec_time is not None and rec_time[0] == token.gen_time
            add("timestamp_time", None if ok else f"token time {_format_time(token.gen_time)}, record time {rec['timestamp']}",
                "token time " + _format_time(token.gen_time))

    # The log operator signed the tree head, and the record is in that tree.
    log_key = str(b.get("log_verifier_key") or "")
    opened: Optional[Tuple[str, int, bytes]] = None
    try:
        opened = open_checkpoint(str(b.get("checkpoint") or ""), log_key)
        add("checkpoint_signature", None, f"tree size {opened[1]}, root {base64.b64encode(opened[2]).decode()}")
    except ValueError as e:
        add("checkpoint_signature", str(e))
    log_index = _int_field(b, "log_index")
    tree_size = _int_field(b, "tree_size")
    if opened is None:
        not_checked("log_inclusion", "checkpoint_signature")
    else:
        _, size, root = opened
        err: Optional[str] = None
        if tree_size != size:
            err = f"bundle tree_size {b.get('tree_size')}, checkpoint size {size}"
        elif log_index is None or not 0 <= log_index < size:
            err = f"log index {b.get('log_index')} outside tree of size {size}"
        else:
            try:
                proof = [_b64(p, "inclusion_proof") for p in b.get("inclusion_proof") or []]
                got_root = root_from_inclusion_proof(log_index, size, leaf_hash(record_bytes or b""), proof)
                if got_root != root:
                    err = f"inclusion proof for index {log_index} leads to another root than the checkpoint's"
            except ValueError as e:
                err = f"inclusion proof for index {log_index}: {e}"
        add("log_inclusion", err, f"record is entry {log_index} of {size}")

    # The bundle uses the keys obtained from the service, not keys of its own.
    pinned_logs = [str(k.get("verifier_key", "")).strip() for k in keys.get("log_keys") or [] if isinstance(k, Mapping)]
    if not _same_pem_cert(str(keys.get("tsa_root_pem") or ""), str(b.get("tsa_root_pem") or "")):
        add("trust_anchors", "bundle TSA root is not the pinned root (keys['tsa_root_pem'])")
    elif log_key.strip() not in pinned_logs:
        add("trust_anchors", "bundle log verifier key is not one of the pinned keys (keys['log_keys'])")
    else:
        add("trust_anchors", None, "bundle uses the pinned TSA root and log key")

    if any(not c["ok"] for c in checks):
        raise CertificateVerificationError(checks)
    assert rec is not None and opened is not None and token is not None
    claims: Dict[str, Any] = {k: rec[k] for k in _RECORD_FIELDS if k != "format"}
    claims.update(log_origin=opened[0], log_index=log_index, tree_size=tree_size,
                  token_time=_format_time(token.gen_time), token_serial=token.serial, checks=checks)
    return claims


def open_checkpoint(note: str, verifier_key: str) -> Tuple[str, int, bytes]:
    """Checks a signed note (golang.org/x/mod/sumdb/note) holding a C2SP
    checkpoint against a verifier key "name+hash+base64(0x01 || Ed25519
    public key)" and returns (origin, tree size, root hash). Raises
    ValueError saying what is wrong."""
    parts = verifier_key.strip().split("+", 2)
    if len(parts) != 3 or not parts[0]:
        raise ValueError("log verifier key: not name+hash+key")
    name, key_hash, key_b64 = parts
    if not re.fullmatch(r"[0-9a-f]{8}", key_hash):
        raise ValueError("log verifier key: hash is not 8 hex digits")
    key = _b64(key_b64, "log verifier key")
    if len(key) != 33 or key[0] != 1:
        raise ValueError("log verifier key: not an Ed25519 key")
    key_id = hashlib.sha256(name.encode() + b"\n" + key).digest()[:4]
    if key_id.hex() != key_hash:
        raise ValueError("log verifier key: hash does not match name and key")
    split = note.rfind("\n\n")
    if split < 0:
        raise ValueError("checkpoint: no signature block")
    text = note[:split + 1]
    verified = False
    for line in note[split + 2:].split("\n"):
        m = re.fullmatch(r"\u2014 (\S+) (\S+)", line)
        if not m or m.group(1) != name:
            continue
        sig = _b64(m.group(2), "checkpoint signature")
        if len(sig) != 4 + 64 or sig[:4] != key_id:
            continue
        if not _ed25519.verify(key[1:], text.encode(), sig[4:]):
            raise ValueError(f"checkpoint signature by {name} does not verify")
        verified = True
        break
    if not verified:
        raise ValueError(f"checkpoint is not signed by {name}")
    lines = text.split("\n")
    if len(lines) < 4:
        raise ValueError("checkpoint: too few lines")
    origin, size_text, root_text = lines[0], lines[1], lines[2]
    if origin != name:
        raise ValueError(f"checkpoint origin {origin!r} does not match key name {name!r}")
    if not re.fullmatch(r"0|[1-9][0-9]*", size_text):
        raise ValueError(f"checkpoint tree size {size_text!r} is malformed")
    root = _b64(root_text, "checkpoint root")
    if len(root) != 32:
        raise ValueError(f"checkpoint root {root_text!r} is malformed")
    return origin, int(size_text), root


def leaf_hash(data: bytes) -> bytes:
    """RFC 6962 leaf hash: SHA-256(0x00 || data)."""
    return hashlib.sha256(b"\x00" + data).digest()


def root_from_inclusion_proof(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """RFC 9162 section 2.1.3.2: the root an inclusion proof leads to.
    Raises ValueError when the proof has the wrong length for index and
    size."""
    if not 0 <= index < size:
        raise ValueError(f"index {index} outside tree of size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ValueError("proof is too long")
        if fn & 1 or fn == sn:
            r = hashlib.sha256(b"\x01" + p + r).digest()
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = hashlib.sha256(b"\x01" + r + p).digest()
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ValueError("proof is too short")
    return r


def _parse_record(data: Optional[bytes]) -> Tuple[Optional[Dict[str, str]], str]:
    """The record's members, or None and why not: it must be the canonical
    JSON (RFC 8785) of exactly the record's string members."""
    if data is None:
        return None, "record is missing or not base64"
    try:
        rec = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return None, f"record bytes are not JSON: {e}"
    if not isinstance(rec, dict) or sorted(rec) != sorted(_RECORD_FIELDS) or \
            not all(isinstance(v, str) for v in rec.values()):
        return None, "record is not an object of the record's string members: " + ", ".join(_RECORD_FIELDS)
    if rec["format"] != RECORD_FORMAT:
        return None, f"unsupported record format {rec['format']!r}"
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z", rec["timestamp"]) or _parse_time(rec["timestamp"]) is None:
        return None, f"record timestamp {rec['timestamp']!r} is not RFC 3339 UTC"
    if _canonical(rec) != data:
        return None, "record bytes are not in canonical form"
    return rec, ""


def _canonical(rec: Mapping[str, str]) -> bytes:
    def string(s: str) -> str:
        out = ['"']
        for ch in s:
            if ch == '"':
                out.append('\\"')
            elif ch == "\\":
                out.append("\\\\")
            elif ch in "\b\t\n\f\r":
                out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
            elif ord(ch) < 0x20:
                out.append("\\u%04x" % ord(ch))
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)

    return ("{" + ",".join(string(k) + ":" + string(rec[k]) for k in sorted(rec)) + "}").encode("utf-8")


def _parse_time(s: Any) -> Optional[Tuple[int, int]]:
    """An RFC 3339 UTC time as (Unix seconds, nanoseconds)."""
    if not isinstance(s, str):
        return None
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z", s)
    if not m:
        return None
    try:
        secs = calendar.timegm(tuple(int(g) for g in m.groups()[:6]) + (0, 0, 0))
    except (ValueError, OverflowError):
        return None
    return secs, int((m.group(7) or "").ljust(9, "0"))


def _format_time(unix: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(unix))


def _b64(s: Any, what: str) -> bytes:
    if isinstance(s, (bytes, bytearray)):
        return bytes(s)
    try:
        return base64.b64decode(str(s), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{what}: not base64") from None


def _bytes_field(b: Mapping[str, Any], name: str) -> Optional[bytes]:
    v = b.get(name)
    if v is None:
        return None
    try:
        return _b64(v, name)
    except ValueError:
        return None


def _int_field(b: Mapping[str, Any], name: str) -> Optional[int]:
    v = b.get(name)
    try:
        return int(v) if isinstance(v, (int, str)) and not isinstance(v, bool) else None
    except ValueError:
        return None


def _same_pem_cert(a: str, b: str) -> bool:
    da, db = _rfc3161.pem_to_der(a), _rfc3161.pem_to_der(b)
    return da is not None and da == db


# Tolerance of an external timestamp's time around the record's
# (ipreg.ExternalTimeTolerance): within it the token corroborates the
# registration time; later, it proves existence at its own time only;
# earlier by more, it contradicts the record.
EXTERNAL_TIME_TOLERANCE = 300


def check_external_timestamps(
    certificate: Union[Mapping[str, Any], str, bytes],
    tsa_ca_pems: Sequence[str],
) -> List[Dict[str, Any]]:
    """Checks offline the certificate's timestamps from independent RFC 3161
    authorities (its external_timestamps) and returns one check per
    authority, named external_timestamp[1], [2], ... like `creativeops
    verify --tsa-ca`.

    tsa_ca_pems: the authorities' CA certificates (PEM texts), obtained from
    the authorities themselves, never from the bundle. A token's TSA
    certificate must be issued directly by one of them (ECDSA P-256; the
    Go verifier also follows intermediates and RSA). With none given, ok
    tokens are reported skipped and unchecked, never ok. A pending or
    failed timestamp is reported skipped: the certificate has no token
    from that authority, and the registry's own proof stands alone.
    A check with ok False means the token is not what it claims.
    """
    if isinstance(certificate, (str, bytes)):
        certificate = json.loads(certificate)
    b = certificate
    record_bytes = _bytes_field(b, "record") or b""
    rec, _ = _parse_record(record_bytes)
    rec_time = _parse_time(rec["timestamp"]) if rec else None
    digest = hashlib.sha256(record_bytes).digest()
    checks: List[Dict[str, Any]] = []
    for i, et in enumerate(b.get("external_timestamps") or [], start=1):
        name = f"external_timestamp[{i}]"
        url = str(et.get("authority_url", ""))
        status = et.get("status")
        if status == "pending":
            detail = f"{url}: pending: the authority's token has not been fetched yet"
            if et.get("error"):
                detail += f" (last attempt: {et['error']})"
            checks.append({"name": name, "ok": True, "skipped": True, "detail": detail})
            continue
        if status == "failed":
            checks.append({"name": name, "ok": True, "skipped": True,
                           "detail": f"{url}: failed: the authority gave no token ({et.get('error', '')})"})
            continue
        if status != "ok":
            checks.append({"name": name, "ok": False, "skipped": False, "detail": f"{url}: unknown status {status!r}"})
            continue
        if not tsa_ca_pems:
            checks.append({"name": name, "ok": True, "skipped": True,
                           "detail": f"UNCHECKED: {url}: no CA of the authority given (tsa_ca_pems); its token is not checked"})
            continue
        try:
            token = _rfc3161.verify_external_token(_bytes_field(et, "token"), list(tsa_ca_pems))
        except (_rfc3161.TokenError, ValueError) as e:
            checks.append({"name": name, "ok": False, "skipped": False, "detail": f"{url}: {e}"})
            continue
        error = None
        if token.digest != digest:
            error = f"token stamps {token.digest.hex()}, record hashes to {digest.hex()}"
        elif rec_time is None:
            error = "record unreadable"
        elif et.get("gen_time") and _parse_time(et["gen_time"]) and _parse_time(et["gen_time"])[0] != token.gen_time:
            error = f"token time {_format_time(token.gen_time)}, bundle shows {et['gen_time']}"
        elif token.gen_time < rec_time[0] - EXTERNAL_TIME_TOLERANCE:
            error = (f"token time {_format_time(token.gen_time)} is before the record's time "
                     f"{_format_time(rec_time[0])} by more than {EXTERNAL_TIME_TOLERANCE} s")
        if error:
            checks.append({"name": name, "ok": False, "skipped": False, "detail": f"{url}: {error}"})
            continue
        after = token.gen_time - rec_time[0]
        when = (f"proves the record existed by {_format_time(token.gen_time)} only, {after} s after its registration"
                if after > EXTERNAL_TIME_TOLERANCE else
                f"stamps sha256(record) at {_format_time(token.gen_time)}, within {EXTERNAL_TIME_TOLERANCE} s of the record's time")
        checks.append({"name": name, "ok": True, "skipped": False,
                       "detail": f"{url}: signed by {token.signer_name!r}, serial {token.serial}, {when}"})
    return checks
