"""Ed25519 signature verification (RFC 8032, section 5.1.7) in pure Python.

The standard library has no Ed25519: hashlib offers the SHA-512 it needs
but no curve arithmetic, and ssl exposes no signature API. Checkpoints of
the transparency log are signed with Ed25519, so the client verifies them
with this. It only verifies (public data, no secrets), so the arithmetic
need not be constant-time.

Like Go's crypto/ed25519 (which signs the checkpoints), it rejects a
non-canonical S (S >= L) and checks [S]B - [k]A == R by comparing
encodings, which also rejects a non-canonical R.
"""

from __future__ import annotations

import hashlib
from typing import Optional, Tuple

_P = 2 ** 255 - 19
_L = 2 ** 252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)

_Point = Tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z


def _add(p: _Point, q: _Point) -> _Point:
    # RFC 8032 section 5.1.4: complete for every pair, so it doubles too.
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _mul(s: int, p: _Point) -> _Point:
    q: _Point = (0, 1, 1, 0)  # the neutral element
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _recover_x(y: int, sign: int) -> Optional[int]:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if x & 1 != sign:
        x = _P - x
    return x


def _decode(b: bytes) -> Optional[_Point]:
    n = int.from_bytes(b, "little")
    y = n & ((1 << 255) - 1)
    x = _recover_x(y, n >> 255)
    if x is None:
        return None
    return (x, y, 1, x * y % _P)


def _encode(p: _Point) -> bytes:
    zinv = pow(p[2], _P - 2, _P)
    x, y = p[0] * zinv % _P, p[1] * zinv % _P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


_B = _decode((4 * pow(5, _P - 2, _P) % _P).to_bytes(32, "little"))


def verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether signature is a valid Ed25519 signature of message by
    public_key (32 bytes)."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode(public_key)
    if a is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _L
    assert _B is not None
    neg_a = ((_P - a[0]) % _P, a[1], a[2], (_P - a[3]) % _P)
    return _encode(_add(_mul(s, _B), _mul(k, neg_a))) == signature[:32]
