"""A 7z archive's listing through py7zr's header classes, from the archive's tail.

7-Zip writes the header last: the packed (usually LZMA-compressed) header stream, then
the encoded header that says how to unpack it, ending the archive; only the 32-byte start
header at the front says where they are. A prober has the last part of the last volume,
so the header is found in the tail by what it must be: an encoded header (kEncodedHeader,
kPackInfo) or a plain one (kHeader, kMainStreamsInfo or kFilesInfo) that parses to exactly
the tail's end. py7zr then reads it through a virtual file that puts the tail where the
archive's offsets say it is. The packed header's CRC-32, checked by py7zr, keeps a chance
match in random bytes from passing as a header.

Header encryption (-mhe) is an AES coder on the encoded header: encrypted, no names.
AES on a data folder: names, encrypted. Part 1 of a bigger archive holds only the start
header: a 7z, its encryption unknown.
"""

from __future__ import annotations

import io
import lzma
import struct
import zlib
from typing import Any, BinaryIO, cast

from py7zr.archiveinfo import Header, HeaderStreamsInfo
from py7zr.exceptions import ArchiveError, PasswordRequired

from pipelines.probe.listing import Listing

SIGNATURE = b"7z\xbc\xaf\x27\x1c"
_START = struct.Struct("<6s2sIQQI")  # signature, version, CRC, next header offset, size, CRC
_START_SIZE = 32
_ENCODED_HEADER = b"\x17\x06"  # kEncodedHeader, kPackInfo
_PLAIN_HEADERS = (b"\x01\x04\x06", b"\x01\x05")  # kHeader + kMainStreamsInfo/kFilesInfo
_ENCODED_REACH = 4096  # an encoded header is a few dozen bytes: looked for near the end
_AES = b"\x06\xf1\x07\x01"
# what a header parse of arbitrary bytes may raise: py7zr's checks, its decompressors'
# errors on a damaged packed header (bz2 raises OSError), and what its readers raise
# before any check on nonsense
_PARSE_ERRORS = (
    ArchiveError,
    PasswordRequired,
    lzma.LZMAError,
    zlib.error,
    OSError,
    TypeError,
    ValueError,
    KeyError,
    IndexError,
    EOFError,
    OverflowError,
    AttributeError,
    struct.error,
    UnicodeDecodeError,
    MemoryError,
    NotImplementedError,
)


class _Placed(io.RawIOBase):
    """The tail, read as if it sat at `base` in the whole archive (nothing before it)."""

    def __init__(self, tail: bytes, base: int) -> None:
        self._tail = tail
        self._base = base
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 1:
            offset += self._pos
        elif whence == 2:
            offset += self._base + len(self._tail)
        self._pos = max(offset, 0)
        return self._pos

    def readinto(self, buffer: Any) -> int:
        at = self._pos - self._base
        if at < 0 or at >= len(self._tail):
            return 0
        chunk = self._tail[at : at + len(buffer)]
        buffer[: len(chunk)] = chunk
        self._pos += len(chunk)
        return len(chunk)


def is_7z(data: bytes) -> bool:
    return data.startswith(SIGNATURE)


def _has_aes(folders: Any) -> bool:
    return any(coder.get("method") == _AES for f in folders or () for coder in f.coders)


def _listing(header: Header) -> Listing:
    out = Listing(encrypted=False)
    streams = header.main_streams
    folders = streams.unpackinfo.folders if streams and streams.unpackinfo else []
    if _has_aes(folders):
        out.encrypted = True
    sizes: list[int] = []
    if streams and streams.substreamsinfo and streams.substreamsinfo.unpacksizes:
        sizes = list(streams.substreamsinfo.unpacksizes)
    elif folders:
        sizes = [f.get_unpack_size() for f in folders]
    files = header.files_info.files if header.files_info else []
    stream = 0
    for f in files:
        if f.get("emptystream"):
            size: int | None = 0
        else:
            size = sizes[stream] if stream < len(sizes) else None
            stream += 1
        if f.get("attributes", 0) & 0x10:  # FILE_ATTRIBUTE_DIRECTORY
            continue
        out.names.append(str(f.get("filename", "")))
        out.sizes.append(size)
    return out


def _encoded_at(tail: bytes, at: int) -> Listing | None:
    buffer = io.BytesIO(tail[at + 1 :])
    try:
        streams = HeaderStreamsInfo.retrieve(buffer)
    except _PARSE_ERRORS:
        return None
    if buffer.tell() != len(tail) - at - 1:
        return None  # a header ends the archive: these bytes do not
    packinfo = streams.packinfo
    if not packinfo.packsizes or not streams.unpackinfo.folders:
        return None
    if _has_aes(streams.unpackinfo.folders):
        return Listing(encrypted=True, detail="the header is encrypted (-mhe)")
    # the packed header lies just before its description
    packed_at = at - sum(packinfo.packsizes)
    if packed_at < 0:
        return None
    base = _START_SIZE + packinfo.packpos - packed_at
    try:
        placed = cast(BinaryIO, _Placed(tail, base))
        header = Header.retrieve(placed, io.BytesIO(tail[at:]), _START_SIZE)
    except _PARSE_ERRORS:
        return None
    return _listing(header)


def _plain_at(tail: io.BytesIO, at: int) -> Listing | None:
    tail.seek(at)  # one buffer for every candidate: a slice each would copy the tail
    try:
        header = Header.retrieve(io.BytesIO(b""), tail, 0)
    except _PARSE_ERRORS:
        return None
    if tail.tell() != len(tail.getbuffer()) or header.files_info is None:
        return None
    return _listing(header)


def read_7z_tail(tail: bytes) -> Listing | None:
    """The listing of the archive `tail` ends, or None when no 7z header ends it."""
    at = len(tail)
    floor = max(0, len(tail) - _ENCODED_REACH)
    while (at := tail.rfind(_ENCODED_HEADER, floor, at)) >= 0:
        found = _encoded_at(tail, at)
        if found is not None:
            return found
    buffer = io.BytesIO(tail)
    for mark in _PLAIN_HEADERS:
        at = len(tail)
        while (at := tail.rfind(mark, 0, at)) >= 0:
            found = _plain_at(buffer, at)
            if found is not None:
                return found
    return None


def read_7z_start(data: bytes) -> Listing:
    """A 7z's first bytes: the whole listing when the header is among them (a small
    archive in one part), else only that it is a 7z."""
    try:
        _, _, _, offset, size, _ = _START.unpack_from(data, 0)
    except struct.error:
        return Listing(detail="start header cut short")
    end = _START_SIZE + offset + size
    if size == 0 and offset == 0:
        return Listing(encrypted=False, detail="an empty archive")
    if end > len(data) or size == 0:
        return Listing(detail="the header is past the bytes at hand")
    found = read_7z_tail(data[:end])
    return found if found is not None else Listing(detail="no header where the start says")
