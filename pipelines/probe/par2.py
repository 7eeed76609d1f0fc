"""A par2 file's packets (Parity Volume Set Specification 2.0): the set's names, sizes and
16 KiB MD5s, from the bytes at hand.

Each packet is a 64-byte header (magic, length, the packet's MD5, the recovery set id,
its type) and a body. The main packet lists the set's file ids; each file-description
packet gives one file's id, MD5s, length and name. An index file holds these alone; a
recovery volume holds them too, after or between its recovery slices. A packet cut at the
segment's end, or whose MD5 does not match, is skipped, never guessed at.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field

MAGIC = b"PAR2\x00PKT"
_HEADER = struct.Struct("<8sQ16s16s16s")  # magic, length, packet MD5, set id, type
_MAIN = b"PAR 2.0\x00Main\x00\x00\x00\x00"
_FILE_DESC = b"PAR 2.0\x00FileDesc"
_RECOVERY = b"PAR 2.0\x00RecvSlic"
_FILE_DESC_FIXED = struct.Struct("<16s16s16sQ")  # file id, MD5, 16 KiB MD5, length


@dataclass
class Par2Set:
    set_id: bytes | None = None
    names: list[str] = field(default_factory=list)
    sizes: list[int | None] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=list)  # MD5 of each file's first 16 KiB
    packets: int = 0  # whole packets read (their MD5 checked)


def _name(raw: bytes) -> str:
    raw = raw.rstrip(b"\x00")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:  # par2cmdline writes the local code page's bytes
        return raw.decode("latin-1")


def read_par2(data: bytes) -> Par2Set:
    """The packets whole in `data`, from its first byte. File descriptions come once per
    file in the listing, in the order of the first seen, whatever the copies."""
    out = Par2Set()
    seen: set[bytes] = set()
    at = 0
    while True:
        at = data.find(MAGIC, at)
        if at < 0 or at + _HEADER.size > len(data):
            break
        _, length, digest, set_id, kind = _HEADER.unpack_from(data, at)
        if length < _HEADER.size or length % 4:
            at += len(MAGIC)  # not a packet's header: look further
            continue
        end = at + length
        if end > len(data):
            if out.set_id is None:
                out.set_id = set_id  # a cut packet still names its set
            break
        if kind == _RECOVERY:
            # the slice's MD5 would cost a hash of the whole slice; its set id is all it has
            out.set_id = out.set_id or set_id
            at = end
            continue
        if hashlib.md5(data[at + 32 : end]).digest() != digest:
            at += len(MAGIC)
            continue
        out.packets += 1
        out.set_id = out.set_id or set_id
        if kind == _FILE_DESC and length >= _HEADER.size + _FILE_DESC_FIXED.size:
            body = at + _HEADER.size
            file_id, _, md5_16k, size = _FILE_DESC_FIXED.unpack_from(data, body)
            if file_id not in seen:
                seen.add(file_id)
                out.names.append(_name(data[body + _FILE_DESC_FIXED.size : end]))
                out.sizes.append(size)
                out.hashes.append(md5_16k)
        at = end
    return out
