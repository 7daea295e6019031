"""RFC 3161 timestamp token verification with the standard library: the
checks of ipreg.verifyTokenSignature (ipreg/timestamp.go) for tokens of
the creativeops TSA (CMS SignedData, one ECDSA P-256 signer whose
certificate is embedded and issued directly by the pinned root), and for
tokens of independent authorities, which mostly sign with RSA (PKCS#1
v1.5) through intermediate CAs embedded in the token.

The standard library parses neither DER nor X.509 and has no ECDSA or
RSA, so this holds a small DER reader, P-256 verification and RSA PKCS#1
v1.5 verification. It handles public
data only, so it need not be constant-time.
"""

from __future__ import annotations

import base64
import binascii
import calendar
import hashlib
import re
from typing import List, NamedTuple, Optional, Tuple

__all__ = ["TokenError", "TokenInfo", "pem_to_der", "pems_to_der", "verify_token", "verify_external_token"]

_OID_SIGNED_DATA = "1.2.840.113549.1.7.2"
_OID_TST_INFO = "1.2.840.113549.1.9.16.1.4"
_OID_CONTENT_TYPE = "1.2.840.113549.1.9.3"
_OID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
_OID_SIGNING_CERT_V2 = "1.2.840.113549.1.9.16.2.47"
_OID_SIGNING_CERT_V1 = "1.2.840.113549.1.9.16.2.12"
_OID_SHA256 = "2.16.840.1.101.3.4.2.1"
_OID_SHA384 = "2.16.840.1.101.3.4.2.2"
_OID_SHA512 = "2.16.840.1.101.3.4.2.3"
_OID_RSA_ENCRYPTION = "1.2.840.113549.1.1.1"
_RSA_SIGNATURES = {  # sha{256,384,512}WithRSAEncryption
    "1.2.840.113549.1.1.11": "sha256",
    "1.2.840.113549.1.1.12": "sha384",
    "1.2.840.113549.1.1.13": "sha512",
}
_DIGESTS = {_OID_SHA256: "sha256", _OID_SHA384: "sha384", _OID_SHA512: "sha512"}
# The DER DigestInfo { AlgorithmIdentifier { oid, NULL }, OCTET STRING } up
# to the digest itself (RFC 8017 section 9.2, note 1).
_DIGEST_INFO_PREFIX = {
    "sha256": bytes.fromhex("3031300d060960864801650304020105000420"),
    "sha384": bytes.fromhex("3041300d060960864801650304020205000430"),
    "sha512": bytes.fromhex("3051300d060960864801650304020305000440"),
}
_OID_BASIC_CONSTRAINTS = "2.5.29.19"
_OID_EC_PUBLIC_KEY = "1.2.840.10045.2.1"
_OID_ECDSA_SHA256 = "1.2.840.10045.4.3.2"
_OID_P256 = "1.2.840.10045.3.1.7"
_OID_EXT_KEY_USAGE = "2.5.29.37"
_OID_KEY_USAGE = "2.5.29.15"
_OID_TIME_STAMPING = "1.3.6.1.5.5.7.3.8"
_OID_COMMON_NAME = "2.5.4.3"


class TokenError(Exception):
    """The token is malformed or does not verify; the message says how."""


class TokenInfo(NamedTuple):
    gen_time: int  # Unix seconds
    serial: int
    policy: str
    digest: bytes  # the SHA-256 message imprint
    signer_name: str  # the TSA certificate's common name


# --- DER ---------------------------------------------------------------


class _TLV(NamedTuple):
    tag: int  # the identifier octet
    content: bytes
    raw: bytes  # the whole encoding


def _read(data: bytes, pos: int = 0) -> Tuple[_TLV, int]:
    try:
        tag = data[pos]
        if tag & 0x1F == 0x1F:
            raise TokenError("DER: multi-byte tags are not used here")
        n = data[pos + 1]
        off = pos + 2
        if n & 0x80:
            k = n & 0x7F
            if k == 0 or k > 4:
                raise TokenError("DER: bad length")
            n = int.from_bytes(data[off:off + k], "big")
            off += k
    except IndexError:
        raise TokenError("DER: truncated") from None
    if off + n > len(data):
        raise TokenError("DER: truncated")
    return _TLV(tag, data[off:off + n], data[pos:off + n]), off + n


def _one(data: bytes, tag: Optional[int] = None) -> _TLV:
    tlv, end = _read(data)
    if end != len(data):
        raise TokenError("DER: trailing data")
    if tag is not None and tlv.tag != tag:
        raise TokenError(f"DER: tag 0x{tlv.tag:02x}, want 0x{tag:02x}")
    return tlv


def _items(content: bytes) -> List[_TLV]:
    out, pos = [], 0
    while pos < len(content):
        tlv, pos = _read(content, pos)
        out.append(tlv)
    return out


def _seq(tlv: _TLV, tag: int = 0x30) -> List[_TLV]:
    if tlv.tag != tag:
        raise TokenError(f"DER: tag 0x{tlv.tag:02x}, want 0x{tag:02x}")
    return _items(tlv.content)


def _oid(tlv: _TLV) -> str:
    if tlv.tag != 0x06 or not tlv.content:
        raise TokenError("DER: not an OBJECT IDENTIFIER")
    arcs, v = [], 0
    for byte in tlv.content:
        v = (v << 7) | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(v)
            v = 0
    first = min(arcs[0] // 40, 2)
    return ".".join(str(a) for a in [first, arcs[0] - 40 * first] + arcs[1:])


def _int(tlv: _TLV) -> int:
    if tlv.tag != 0x02 or not tlv.content:
        raise TokenError("DER: not an INTEGER")
    return int.from_bytes(tlv.content, "big", signed=True)


def _time(tlv: _TLV) -> int:
    s = tlv.content.decode("ascii", "replace")
    if tlv.tag == 0x17:  # UTCTime, YYMMDDHHMMSSZ
        m = re.fullmatch(r"(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z", s)
        if m:
            y = int(m.group(1))
            parts = [y + (1900 if y >= 50 else 2000)] + [int(g) for g in m.groups()[1:]]
            return calendar.timegm(tuple(parts) + (0, 0, 0))
    elif tlv.tag == 0x18:  # GeneralizedTime, YYYYMMDDHHMMSS[.f]Z
        m = re.fullmatch(r"(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\.\d+)?Z", s)
        if m:
            return calendar.timegm(tuple(int(g) for g in m.groups()[:6]) + (0, 0, 0))
    raise TokenError(f"DER: bad time {s!r}")


def pem_to_der(pem: str) -> Optional[bytes]:
    """The DER of the first certificate in pem, or None."""
    m = re.search(r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", pem, re.S)
    if not m:
        return None
    try:
        return base64.b64decode("".join(m.group(1).split()), validate=True)
    except (binascii.Error, ValueError):
        return None


def pems_to_der(pem: str) -> List[bytes]:
    """The DER of every certificate in pem."""
    out = []
    for m in re.finditer(r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", pem, re.S):
        try:
            out.append(base64.b64decode("".join(m.group(1).split()), validate=True))
        except (binascii.Error, ValueError):
            continue
    return out


# --- P-256 ECDSA ---------------------------------------------------------

_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
_A = _P - 3
_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
      0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)

_Point = Optional[Tuple[int, int]]  # affine; None is the point at infinity


def _ec_add(p: _Point, q: _Point) -> _Point:
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0]:
        if (p[1] + q[1]) % _P == 0:
            return None
        lam = (3 * p[0] * p[0] + _A) * pow(2 * p[1], _P - 2, _P) % _P
    else:
        lam = (q[1] - p[1]) * pow(q[0] - p[0], _P - 2, _P) % _P
    x = (lam * lam - p[0] - q[0]) % _P
    return (x, (lam * (p[0] - x) - p[1]) % _P)


def _ec_mul(k: int, p: _Point) -> _Point:
    r: _Point = None
    while k:
        if k & 1:
            r = _ec_add(r, p)
        p = _ec_add(p, p)
        k >>= 1
    return r


def _ecdsa_p256_verify(public_point: bytes, digest: bytes, signature_der: bytes) -> bool:
    if len(public_point) != 65 or public_point[0] != 4:
        raise TokenError("ECDSA: public key is not an uncompressed P-256 point")
    q = (int.from_bytes(public_point[1:33], "big"), int.from_bytes(public_point[33:], "big"))
    if q[0] >= _P or q[1] >= _P or (q[1] * q[1] - q[0] ** 3 - _A * q[0] - _B) % _P != 0:
        raise TokenError("ECDSA: public key is not on P-256")
    rs = _seq(_one(signature_der))
    if len(rs) != 2:
        raise TokenError("ECDSA: signature is not SEQUENCE { r, s }")
    r, s = _int(rs[0]), _int(rs[1])
    if not (0 < r < _N and 0 < s < _N):
        return False
    e = int.from_bytes(digest, "big")
    w = pow(s, _N - 2, _N)
    point = _ec_add(_ec_mul(e * w % _N, _G), _ec_mul(r * w % _N, q))
    return point is not None and point[0] % _N == r


# --- RSA PKCS#1 v1.5 ---------------------------------------------------


def _rsa_verify(n: int, e: int, hash_name: str, data: bytes, signature: bytes) -> bool:
    """RSASSA-PKCS1-v1_5 verification (RFC 8017 section 8.2.2): the
    signature, raised to e mod n, must be exactly the EMSA-PKCS1-v1_5
    encoding 00 01 FF..FF 00 DigestInfo of the data's digest."""
    k = (n.bit_length() + 7) // 8
    if len(signature) != k:
        return False
    sig = int.from_bytes(signature, "big")
    if sig >= n:
        return False
    t = _DIGEST_INFO_PREFIX[hash_name] + hashlib.new(hash_name, data).digest()
    if k < len(t) + 11:
        return False
    expected = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    return pow(sig, e, n).to_bytes(k, "big") == expected


# --- X.509 -------------------------------------------------------------


class _Cert(NamedTuple):
    raw: bytes
    tbs: bytes
    serial: int
    issuer: bytes  # DER Name
    subject: bytes
    not_before: int
    not_after: int
    public_point: bytes  # P-256 keys: the uncompressed point; RSA keys: b""
    signature: bytes
    extensions: List[Tuple[str, bool, bytes]]  # (oid, critical, value)
    sig_alg: str  # the algorithm its issuer signed it with
    rsa_key: Optional[Tuple[int, int]]  # RSA keys: (n, e)

    def common_name(self) -> str:
        for rdn in _items(_one(self.subject, 0x30).content):
            for atv in _seq(rdn, 0x31):
                parts = _seq(atv)
                if len(parts) == 2 and _oid(parts[0]) == _OID_COMMON_NAME:
                    return parts[1].content.decode("utf-8", "replace")
        return ""


def _parse_cert(der: bytes) -> _Cert:
    cert = _seq(_one(der))
    if len(cert) != 3:
        raise TokenError("certificate: not SEQUENCE { tbs, algorithm, signature }")
    tbs = _seq(cert[0])
    if tbs and tbs[0].tag == 0xA0:  # [0] EXPLICIT version
        tbs = tbs[1:]
    if len(tbs) < 6:
        raise TokenError("certificate: short TBSCertificate")
    serial, _, issuer, validity, subject, spki = tbs[:6]
    not_before, not_after = (_time(t) for t in _seq(validity))
    key = _seq(spki)
    alg = _seq(key[0])
    if key[1].tag != 0x03 or key[1].content[:1] != b"\x00":
        raise TokenError("certificate: bad public key BIT STRING")
    point, rsa_key = key[1].content[1:], None
    if _oid(alg[0]) == _OID_RSA_ENCRYPTION:
        ne = _seq(_one(point))
        if len(ne) != 2 or _int(ne[0]) <= 0 or _int(ne[1]) <= 1:
            raise TokenError("certificate: bad RSA public key")
        point, rsa_key = b"", (_int(ne[0]), _int(ne[1]))
    elif _oid(alg[0]) != _OID_EC_PUBLIC_KEY or len(alg) < 2 or _oid(alg[1]) != _OID_P256:
        raise TokenError("certificate: key is neither ECDSA P-256 nor RSA")
    sig_alg = _oid(_seq(cert[1])[0])
    if sig_alg != _OID_ECDSA_SHA256 and sig_alg not in _RSA_SIGNATURES:
        raise TokenError("certificate: not signed with ECDSA SHA-256 nor RSA SHA-256/384/512")
    if cert[2].tag != 0x03 or cert[2].content[:1] != b"\x00":
        raise TokenError("certificate: bad signature BIT STRING")
    extensions = []
    for t in tbs[6:]:
        if t.tag == 0xA3:  # [3] EXPLICIT Extensions
            for ext in _seq(_one(t.content)):
                parts = _seq(ext)
                critical = len(parts) == 3 and parts[1].tag == 0x01 and parts[1].content != b"\x00"
                extensions.append((_oid(parts[0]), critical, parts[-1].content))
    return _Cert(der, cert[0].raw, _int(serial), issuer.raw, subject.raw, not_before, not_after,
                 point, cert[2].content[1:], extensions, sig_alg, rsa_key)


def _verify_signature(key: _Cert, alg: str, data: bytes, signature: bytes, digest_name: str = "sha256") -> bool:
    """Whether signature, by key's public key, over data verifies:
    ecdsa-with-SHA256 by a P-256 key, or RSA PKCS#1 v1.5 with SHA-256,
    SHA-384 or SHA-512 by an RSA key. A CMS signer may name its algorithm
    rsaEncryption (or id-ecPublicKey) alone: digest_name, its digest
    algorithm, then says the hash."""
    if alg in (_OID_ECDSA_SHA256, _OID_EC_PUBLIC_KEY):
        if key.rsa_key is not None or digest_name != "sha256":
            return False
        try:
            return _ecdsa_p256_verify(key.public_point, hashlib.sha256(data).digest(), signature)
        except TokenError:
            return False
    hash_name = digest_name if alg == _OID_RSA_ENCRYPTION else _RSA_SIGNATURES.get(alg)
    if hash_name is None or key.rsa_key is None:
        return False
    return _rsa_verify(key.rsa_key[0], key.rsa_key[1], hash_name, data, signature)


def _ca_constraints(cert: _Cert) -> Tuple[bool, Optional[int]]:
    """Whether cert is a CA (basicConstraints cA TRUE, and keyCertSign if
    it has a key usage), and its path length limit."""
    ca, path_len, cert_sign = False, None, True
    for oid, _, value in cert.extensions:
        if oid == _OID_BASIC_CONSTRAINTS:
            parts = _seq(_one(value))
            ca = bool(parts) and parts[0].tag == 0x01 and parts[0].content != b"\x00"
            path_len = next((_int(p) for p in parts if p.tag == 0x02), None)
        elif oid == _OID_KEY_USAGE:
            bits = _one(value, 0x03).content[1:2]
            cert_sign = bool(bits) and bool(bits[0] & 0x04)  # keyCertSign, bit 5
    return ca and cert_sign, path_len


_MAX_INTERMEDIATES = 4


def _chain_to_root(signer: _Cert, pool: List[_Cert], roots: List[_Cert], at: int) -> List[_Cert]:
    """The certificates from signer's issuer up to one of roots: each
    signature verified by its issuer's key, each valid at the time at,
    each intermediate (from pool) a CA within its path length limit.
    Raises TokenError saying why there is none."""
    reason = ""

    def walk(c: _Cert, above: List[_Cert]) -> Optional[List[_Cert]]:
        nonlocal reason
        for r in roots:
            if r.subject != c.issuer:
                continue
            if not _verify_signature(r, c.sig_alg, c.tbs, c.signature):
                reason = reason or ("the TSA certificate is not issued by the pinned root" if not above
                                    else "an intermediate CA certificate is not issued by the pinned root")
                continue
            if not r.not_before <= at <= r.not_after:
                reason = "the root certificate is not valid at the token's time"
                continue
            return above + [r]
        if len(above) >= _MAX_INTERMEDIATES:
            return None
        for p in pool:
            if p is signer or p in above or p.subject != c.issuer:
                continue
            ca, path_len = _ca_constraints(p)
            if not ca:
                reason = "an intermediate certificate in the token is not a CA"
                continue
            if path_len is not None and path_len < len(above):
                reason = "an intermediate CA's path length limit is exceeded"
                continue
            if not _verify_signature(p, c.sig_alg, c.tbs, c.signature):
                reason = reason or "a certificate signature does not verify with its intermediate CA"
                continue
            if not p.not_before <= at <= p.not_after:
                reason = "an intermediate CA certificate is not valid at the token's time"
                continue
            found = walk(p, above + [p])
            if found:
                return found
        return None

    chain = walk(signer, [])
    if chain is None:
        raise TokenError("timestamp token signature: " + (reason or "the TSA certificate is not issued by the pinned root"))
    return chain


def _check_tsa_profile(cert: _Cert) -> None:
    """The TSA certificate's extended key usage is critical and exactly
    timeStamping (RFC 3161 section 2.3); its key usage, if any, allows
    signing."""
    ekus = [(critical, value) for oid, critical, value in cert.extensions if oid == _OID_EXT_KEY_USAGE]
    if any(not critical for critical, _ in ekus):
        raise TokenError("TSA certificate extended key usage is not critical")
    if len(ekus) != 1 or [_oid(t) for t in _seq(_one(ekus[0][1]))] != [_OID_TIME_STAMPING]:
        raise TokenError("TSA certificate extended key usage must be exactly timeStamping")
    for oid, _, value in cert.extensions:
        if oid == _OID_KEY_USAGE:
            bits = _one(value, 0x03).content[1:2]
            # digitalSignature (bit 0) or contentCommitment (bit 1).
            if bits and not bits[0] & 0xC0:
                raise TokenError("TSA certificate key usage does not allow signing")


# --- the token -----------------------------------------------------------


def verify_token(der: Optional[bytes], root_pem: str) -> TokenInfo:
    """Checks, offline, that der is a granted RFC 3161 TimeStampResp whose
    TSTInfo is signed (ECDSA P-256, SHA-256) by the one embedded
    certificate, that this certificate is issued by the root in root_pem
    and valid at the token's time, carries a critical timeStamping
    extended key usage and is bound by the ESS signing-certificate-v2
    attribute, and that the imprint is a SHA-256. Returns what the token
    asserts; raises TokenError saying what failed."""
    root_der = pem_to_der(root_pem)
    if root_der is None:
        raise TokenError("no root certificate in TSA root PEM")
    return _verify(der, [_parse_cert(root_der)], external=False)


def verify_external_token(der: Optional[bytes], ca_pems: List[str]) -> TokenInfo:
    """verify_token for a token of an independent timestamp authority
    (certificate external_timestamps): its TSA certificate must chain to
    one of the CA certificates in ca_pems, directly or through
    intermediate CAs embedded in the token (each a CA, each signature
    verified, each valid at the token's time); signatures may be ECDSA
    P-256 with SHA-256 or RSA PKCS#1 v1.5 with SHA-256, SHA-384 or
    SHA-512, as real authorities use; and the ESS signing-certificate
    attribute may be v1 (SHA-1, OpenSSL's default and that of many
    authorities) or v2."""
    roots = []
    for pem in ca_pems:
        for d in pems_to_der(pem):
            try:
                roots.append(_parse_cert(d))
            except TokenError:
                continue  # a CA with another key type cannot have issued a signer we check
    if not roots:
        raise TokenError("no usable CA certificate (ECDSA P-256 or RSA) in the authorities' CA PEM")
    return _verify(der, roots, external=True)


def _verify(der: Optional[bytes], roots: List[_Cert], external: bool) -> TokenInfo:
    """external: a token of an independent authority, which may use ESS
    v1, RSA and SHA-384/512, and intermediate CAs embedded in the token."""
    if not der:
        raise TokenError("no timestamp token")
    resp = _seq(_one(der))
    if len(resp) < 2:
        raise TokenError("timestamp response carries no token")
    status = _int(_seq(resp[0])[0])
    if status not in (0, 1):  # granted, grantedWithMods
        raise TokenError(f"timestamp response status {status}: not granted")
    content_info = _seq(resp[1])
    if _oid(content_info[0]) != _OID_SIGNED_DATA or content_info[1].tag != 0xA0:
        raise TokenError("timestamp token is not CMS SignedData")
    sd = _seq(_one(content_info[1].content))
    encap = _seq(sd[2])
    if _oid(encap[0]) != _OID_TST_INFO or len(encap) != 2 or encap[1].tag != 0xA0:
        raise TokenError("timestamp token content is not TSTInfo")
    tst_der = _one(encap[1].content, 0x04).content
    certs = [_parse_cert(c.raw) for c in _items(sd[3].content)] if sd[3].tag == 0xA0 else []
    signer_infos = _seq(sd[-1], 0x31)
    if len(signer_infos) != 1:
        raise TokenError("timestamp token must have exactly one signer")
    si = _seq(signer_infos[0])
    sid = _seq(si[1])
    signer = next((c for c in certs if c.issuer == sid[0].raw and c.serial == _int(sid[1])), None)
    if signer is None:
        raise TokenError("timestamp token does not embed its signer's certificate")
    digest_name = _DIGESTS.get(_oid(_seq(si[2])[0]))
    if digest_name is None or (not external and digest_name != "sha256") or si[3].tag != 0xA0:
        raise TokenError("timestamp token is not signed over SHA-256" + ("/384/512" if external else "") + " signed attributes")
    attrs = {}
    for a in _items(si[3].content):
        parts = _seq(a)
        attrs[_oid(parts[0])] = _seq(parts[1], 0x31)
    if [_oid(v) for v in attrs.get(_OID_CONTENT_TYPE, [])] != [_OID_TST_INFO]:
        raise TokenError("timestamp token signed content type is not TSTInfo")
    md = attrs.get(_OID_MESSAGE_DIGEST, [])
    if len(md) != 1 or md[0].content != hashlib.new(digest_name, tst_der).digest():
        raise TokenError("timestamp token message digest does not match its TSTInfo")
    ess = attrs.get(_OID_SIGNING_CERT_V2)
    cert_hash = hashlib.sha256(signer.raw).digest()
    if not ess and external and attrs.get(_OID_SIGNING_CERT_V1):
        ess = attrs[_OID_SIGNING_CERT_V1]  # ESSCertID: certHash is SHA-1, no hashAlgorithm
        cert_hash = hashlib.sha1(signer.raw).digest()  # noqa: S324 - RFC 2634 names certificates by SHA-1
    if not ess:
        raise TokenError("timestamp token lacks the ESS signing-certificate-v2 attribute")
    ids = _seq(_seq(ess[0])[0])
    if not ids:
        raise TokenError("timestamp token ESS attribute names no certificate")
    first = _seq(ids[0])
    if first[0].tag == 0x30:  # hashAlgorithm (v2 only), absent means SHA-256
        if _oid(_seq(first[0])[0]) != _OID_SHA256:
            raise TokenError("timestamp token ESS attribute uses an unsupported hash")
        first = first[1:]
    if first[0].content != cert_hash:
        raise TokenError("timestamp token ESS attribute does not match the signing certificate")
    _check_tsa_profile(signer)
    sig_alg = _oid(_seq(si[4])[0])
    allowed = {_OID_ECDSA_SHA256, _OID_EC_PUBLIC_KEY}
    if external:
        allowed |= {_OID_RSA_ENCRYPTION, *_RSA_SIGNATURES}
    if sig_alg not in allowed:
        raise TokenError("timestamp token signature is not " + ("ECDSA or RSA" if external else "ECDSA"))
    signed_attrs = b"\x31" + si[3].raw[1:]  # signed as a SET OF (RFC 5652 section 5.4)
    if not _verify_signature(signer, sig_alg, signed_attrs, _one(si[5].raw, 0x04).content, digest_name):
        raise TokenError("timestamp token signature does not verify")

    tst = _seq(_one(tst_der))
    imprint = _seq(tst[2])
    if _oid(_seq(imprint[0])[0]) != _OID_SHA256 or len(imprint[1].content) != 32:
        raise TokenError("timestamp token imprint is not SHA-256")
    gen_time = _time(tst[4])

    # The chain, evaluated at the token's own time: the TSA vouched for it
    # while its certificate was valid, which is what matters later.
    # Intermediates come from the token only for an external authority.
    _chain_to_root(signer, certs if external else [], roots, gen_time)
    if not signer.not_before <= gen_time <= signer.not_after:
        raise TokenError("timestamp token signature: the TSA certificate is not valid at the token's time")
    return TokenInfo(gen_time, _int(tst[3]), _oid(tst[1]), imprint[1].content, signer.common_name())
