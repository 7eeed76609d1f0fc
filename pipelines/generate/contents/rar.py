"""The first bytes of RAR volumes (RAR 4 and RAR 5), from the format's specification.

No Python library writes RAR, so this writes the minimum a reader of a volume needs:
the signature, the archive header (volume flags, encrypted headers), and the header of
the file the volume starts or continues (name, sizes, split flags, method, encryption
record); the packed data after it is the caller's. `rarfile` lists what these write
and says when they need a password (tests/test_generate_bodies_formats.py).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

RAR4_SIGNATURE = b"Rar!\x1a\x07\x00"
RAR5_SIGNATURE = b"Rar!\x1a\x07\x01\x00"
# RAR 4 archive header flags
MHD_VOLUME, MHD_NEWNUMBERING, MHD_PASSWORD, MHD_FIRSTVOLUME = 0x0001, 0x0010, 0x0080, 0x0100
# RAR 4 file header flags
LHD_SPLIT_BEFORE, LHD_SPLIT_AFTER, LHD_PASSWORD = 0x01, 0x02, 0x04
LHD_LARGE, LHD_SALT, LONG_BLOCK = 0x100, 0x400, 0x8000
DOS_TIME = (2019 - 1980) << 25 | 5 << 21 | 14 << 16 | 20 << 11  # 2019-05-14 20:00
STORE4, NORMAL4 = 0x30, 0x33


@dataclass(frozen=True)
class Entry:
    """The file a volume starts: its name and whole size, how it is packed."""

    name: str
    size: int
    compressed: bool = False
    encrypted_data: bool = False  # rar -p: names shown, data needs the password
    encrypted_headers: bool = False  # rar -hp: nothing readable without the password


def _block4(kind: int, flags: int, fields: bytes) -> bytes:
    body = struct.pack("<BHH", kind, flags, 7 + len(fields)) + fields
    return struct.pack("<H", zlib.crc32(body) & 0xFFFF) + body


def rar4_head(
    entry: Entry,
    packed: int,
    new_numbering: bool,
    salt: bytes,
    volume: int = 0,
    last: bool = False,
) -> bytes:
    """A RAR 4 volume up to its file's data: `packed` bytes of it in this volume; the
    first (`volume` 0) unless told, else a later one continuing the file (the `last`
    ends it)."""
    main_flags = MHD_VOLUME | (MHD_NEWNUMBERING if new_numbering else 0)
    main_flags |= MHD_FIRSTVOLUME if volume == 0 else 0
    if entry.encrypted_headers:
        # every block after the archive header is AES-encrypted, each behind its salt
        main = _block4(0x73, main_flags | MHD_PASSWORD, b"\0" * 6)
        return RAR4_SIGNATURE + main + salt[:8]
    main = _block4(0x73, main_flags, b"\0" * 6)
    name = entry.name.encode()
    flags = LONG_BLOCK | (0 if last else LHD_SPLIT_AFTER) | 0x40  # 0x40: a 1 MB dictionary
    flags |= LHD_SPLIT_BEFORE if volume else 0
    large = entry.size >= 1 << 32 or packed >= 1 << 32
    if large:
        flags |= LHD_LARGE
    if entry.encrypted_data:
        flags |= LHD_PASSWORD | LHD_SALT
    fields = struct.pack(
        "<IIBIIBBHI",
        packed & 0xFFFFFFFF,
        entry.size & 0xFFFFFFFF,
        2,  # Windows
        0,  # a split file's CRC is the last part's
        DOS_TIME,
        29,  # needs RAR 2.9 to unpack
        NORMAL4 if entry.compressed else STORE4,
        len(name),
        0x20,  # archive attribute
    )
    if large:
        fields += struct.pack("<II", packed >> 32, entry.size >> 32)
    fields += name
    if entry.encrypted_data:
        fields += salt[:8]
    return RAR4_SIGNATURE + main + _block4(0x74, flags, fields)


def vint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _block5(kind: int, flags: int, fields: bytes, extra: bytes = b"", data: int | None = None):
    head = vint(kind)
    if extra:
        flags |= 0x0001
    if data is not None:
        flags |= 0x0002
    head += vint(flags)
    if extra:
        head += vint(len(extra))
    if data is not None:
        head += vint(data)
    head += fields + extra
    sized = vint(len(head)) + head
    return struct.pack("<I", zlib.crc32(sized)) + sized


def rar5_head(entry: Entry, packed: int, salt: bytes, volume: int = 0, last: bool = False) -> bytes:
    """A RAR 5 volume up to its file's data (the first unless `volume`, as `rar4_head`);
    `salt` gives 16 bytes of salt and 16 of IV (and a check value) where encryption asks
    for them."""
    salt16, iv, check = salt[:16], salt[16:32], salt[32:44]
    if entry.encrypted_headers:
        # the archive encryption header: what follows is encrypted, each header behind
        # its IV; KDF count 15 as rar sets it, a password check value present
        fields = vint(0) + vint(0x0001) + bytes([15]) + salt16 + check
        return RAR5_SIGNATURE + _block5(4, 0, fields) + iv
    # a volume; the first has no volume number, the second is 1
    main = _block5(1, 0, vint(0x0003) + vint(volume) if volume else vint(0x0001))
    name = entry.name.encode()
    method = 3 if entry.compressed else 0
    compression = method << 7 | 5 << 10  # dictionary 4 MB (128 KB << 5)
    fields = vint(0) + vint(entry.size) + vint(0x20) + vint(compression) + vint(0)
    fields += vint(len(name)) + name
    extra = b""
    if entry.encrypted_data:
        record = vint(0x01) + vint(0) + vint(0x0001) + bytes([15]) + salt16 + iv + check
        extra = vint(len(record)) + record
    # 0x08: continued from the previous volume, 0x10: continues in the next
    split = (0x0008 if volume else 0) | (0 if last else 0x0010)
    header = _block5(2, split, fields, extra, packed)
    return RAR5_SIGNATURE + main + header
