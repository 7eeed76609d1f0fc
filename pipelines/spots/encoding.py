"""Spotnet's base64 and the spotter's id.

Spotnet writes base64 with `/` as `-s` and `+` as `-p` (two characters each: not the
URL-safe alphabet, whose single-character swap would leave a stray `s` or `p` and shift
every byte after it) and drops the `=` padding. Standard base64 has no `-`, so one decoder
reads both the escaped values (signatures, the From header's key) and plain ones (the
X-User-Key's modulus).
"""

from __future__ import annotations

import base64
import binascii
import zlib


class BadBase64(ValueError):
    pass


def spot_b64decode(text: bytes | str) -> bytes:
    """Bytes of Spotnet's base64 (escaped or plain, padded or not)."""
    raw = text.encode("ascii", "replace") if isinstance(text, str) else text
    raw = raw.strip().replace(b"-s", b"/").replace(b"-p", b"+")
    raw += b"=" * (-len(raw) % 4)
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as e:
        raise BadBase64(str(e)) from e


def spot_b64encode(data: bytes) -> bytes:
    """Spotnet's base64 of data: `/` as `-s`, `+` as `-p`, no padding."""
    text = base64.b64encode(data).rstrip(b"=")
    return text.replace(b"/", b"-s").replace(b"+", b"-p")


def spotter_id(modulus: bytes) -> str:
    """The spotter's id: base64 of the CRC32 of its key's modulus (little-endian), with
    `/`, `+` and `=` left out, as Spotnet clients show it."""
    crc = zlib.crc32(modulus).to_bytes(4, "little")
    return base64.b64encode(crc).decode().replace("/", "").replace("+", "").replace("=", "")
