"""PAR 2.0 index files, packet by packet as the specification lays them out.

No Python library writes par2. A packet is a 64-byte header (magic, length, the MD5 of
the rest from the set id on, the recovery set id, the type) and a body; the set id is the
MD5 of the main packet's body and a file's id the MD5 of its 16 KiB hash, length and
name. `par2 verify` (par2cmdline) accepts what `index_file` writes from real data
(tests/test_generate_bodies_formats.py).
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass

MAGIC = b"PAR2\0PKT"
MAIN = b"PAR 2.0\0Main\0\0\0\0"
FILE_DESC = b"PAR 2.0\0FileDesc"
IFSC = b"PAR 2.0\0IFSC\0\0\0\0"
CREATOR = b"PAR 2.0\0Creator\0"
HASH_16K = 16 * 1024


@dataclass(frozen=True)
class SetFile:
    """One file of a recovery set as its index describes it."""

    name: str
    size: int
    md5: bytes  # of the whole file
    md5_16k: bytes  # of its first 16 KiB
    slices: list[tuple[bytes, int]] | None = None  # (MD5, CRC-32) per slice, when known

    @property
    def file_id(self) -> bytes:
        return hashlib.md5(
            self.md5_16k + struct.pack("<Q", self.size) + self.name.encode()
        ).digest()


def set_file(name: str, data: bytes, slice_size: int) -> SetFile:
    """A file known whole (tests): its hashes and its slices' checksums."""
    slices = []
    for at in range(0, len(data), slice_size):
        block = data[at : at + slice_size].ljust(slice_size, b"\0")  # the last one padded
        slices.append((hashlib.md5(block).digest(), zlib.crc32(block)))
    return SetFile(
        name, len(data), hashlib.md5(data).digest(), hashlib.md5(data[:HASH_16K]).digest(), slices
    )


def _pad4(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


def packet(set_id: bytes, kind: bytes, body: bytes) -> bytes:
    rest = set_id + kind + body
    length = 8 + 8 + 16 + len(rest)
    return MAGIC + struct.pack("<Q", length) + hashlib.md5(rest).digest() + rest


def _sort_key(file_id: bytes) -> bytes:
    # the spec sorts ids as 16-byte unsigned integers; par2cmdline reads them little-endian
    return file_id[::-1]


def index_file(files: list[SetFile], slice_size: int, creator: str = "usenet-indexer") -> bytes:
    """The main packet, a file-description (and, where known, checksum) packet a file,
    and a creator packet: what par2cmdline writes into `name.par2`."""
    if slice_size % 4:
        raise ValueError("a par2 slice size is a multiple of 4")
    ids = sorted((f.file_id for f in files), key=_sort_key)
    main_body = struct.pack("<QI", slice_size, len(ids)) + b"".join(ids)
    set_id = hashlib.md5(main_body).digest()
    out = [packet(set_id, MAIN, main_body)]
    for f in files:
        desc = f.file_id + f.md5 + f.md5_16k + struct.pack("<Q", f.size) + _pad4(f.name.encode())
        out.append(packet(set_id, FILE_DESC, desc))
        if f.slices is not None:
            checks = b"".join(md5 + struct.pack("<I", crc) for md5, crc in f.slices)
            out.append(packet(set_id, IFSC, f.file_id + checks))
    out.append(packet(set_id, CREATOR, _pad4(creator.encode())))
    return b"".join(out)


def recovery_set_id(index: bytes) -> bytes:
    return index[32:48]
