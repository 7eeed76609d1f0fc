"""A ZIP's entries from its local file headers, the only ones a first part holds.

The zipfile module reads the central directory at the archive's end; the first part has the front,
where each entry starts with a local header (PK\\x03\\x04): its name, sizes, flags. Bit 0
of the general-purpose flags is encryption (ZipCrypto or strong), and WinZip AES marks an
entry with method 99 and extra field 0x9901. An entry whose sizes come after its data (bit
3, streamed) cannot be stepped over: the listing stops there.
"""

from __future__ import annotations

import struct

from pipelines.probe.listing import Listing

LOCAL_HEADER = b"PK\x03\x04"
# the local header (APPNOTE 4.3.7): signature, version needed (2 bytes), flags, method,
# time, date, CRC-32, compressed size, size, name length, extra field length
_LOCAL = struct.Struct("<4s2BHHHHLLLHH")
_EXTRA = struct.Struct("<HH")
_AES_EXTRA = 0x9901
_AES_METHOD = 99
_ZIP64_EXTRA = 0x0001
_DATA_DESCRIPTOR = 0x08
_MAX_ENTRIES = 10_000


def is_zip(data: bytes) -> bool:
    return data.startswith(LOCAL_HEADER)


def _extras(raw: bytes) -> dict[int, bytes]:
    out: dict[int, bytes] = {}
    at = 0
    while at + _EXTRA.size <= len(raw):
        kind, size = _EXTRA.unpack_from(raw, at)
        out[kind] = raw[at + _EXTRA.size : at + _EXTRA.size + size]
        at += _EXTRA.size + size
    return out


def read_zip(data: bytes) -> Listing:
    out = Listing()
    at = 0
    while data.startswith(LOCAL_HEADER, at) and len(out.names) < _MAX_ENTRIES:
        if at + _LOCAL.size > len(data):
            break
        _, _, _, flags, method, _, _, _, packed, size, name_len, extra_len = _LOCAL.unpack_from(
            data, at
        )
        name_at = at + _LOCAL.size
        if name_at + name_len + extra_len > len(data):
            break  # the header is cut
        raw_name = data[name_at : name_at + name_len]
        extras = _extras(data[name_at + name_len : name_at + name_len + extra_len])
        zip64 = extras.get(_ZIP64_EXTRA, b"")
        if size == 0xFFFFFFFF and len(zip64) >= 8:
            size = int.from_bytes(zip64[:8], "little")
        if packed == 0xFFFFFFFF and len(zip64) >= 16:
            packed = int.from_bytes(zip64[8:16], "little")
        # the language flag (bit 11) says UTF-8; else the entry is in the DOS code page
        name = raw_name.decode("utf-8" if flags & 0x800 else "cp437", "replace")
        encrypted = bool(flags & 0x1) or method == _AES_METHOD or _AES_EXTRA in extras
        streamed = bool(flags & _DATA_DESCRIPTOR)
        if not name.endswith("/"):
            out.add(name, None if streamed and size == 0 else size, encrypted)
        if streamed and packed == 0:
            out.detail = "an entry streamed (its sizes after its data): the listing stops"
            break
        at = name_at + name_len + extra_len + packed
        if streamed:
            at = _past_descriptor(data, at)
    return out


def _past_descriptor(data: bytes, at: int) -> int:
    """Past a data descriptor: 12 or 16 bytes (its signature is optional), 20/24 in zip64."""
    for size in (16, 12, 24, 20):
        if data.startswith(LOCAL_HEADER, at + size):
            return at + size
    return at + 16
