"""A 7z set's two ends: the signature header of its first volume and the header at the
end of its last, written by py7zr and made to describe a set of the posted size.

py7zr writes a small archive of the set's real names; its header is read back, its
pack and unpack sizes set to the big set's (the data between the ends is filler), and
written again by py7zr, encoded (LZMA) or encrypted (-mhe) as 7-Zip writes it. A reader
of only the tail finds the header where the signature header says, with sizes that add
up to the set's size. py7zr's AES salt and IV come from a seeded stream here, so the
same seed gives the same bytes.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass

import py7zr
import py7zr.compressor
from py7zr.archiveinfo import SignatureHeader

from pipelines.articles.filler import filler

SIGNATURE_BYTES = 32
FILETIME_2019 = 132_022_368_000_000_000  # 2019-05-14 as a Windows FILETIME


@dataclass(frozen=True)
class SevenZipEnds:
    head: bytes  # the 32-byte signature header: where the header is, its size and CRC
    tail: bytes  # the archive's last bytes: the (encoded) header


@contextlib.contextmanager
def seeded_random(seed: bytes) -> Iterator[None]:
    """Cryptodome's random bytes (py7zr's and pyzipper's salts and IVs) from `seed`."""
    drawn = [0]

    def draw(n: int) -> bytes:
        drawn[0] += 1
        return filler(seed + drawn[0].to_bytes(4, "little"), n)

    import pyzipper.zipfile_aes as aes

    class _Random:
        @staticmethod
        def new() -> _Random:
            return _Random()

        def read(self, n: int) -> bytes:
            return draw(n)

    saved = py7zr.compressor.get_random_bytes, aes.Random
    py7zr.compressor.get_random_bytes, aes.Random = draw, _Random
    try:
        yield
    finally:
        py7zr.compressor.get_random_bytes, aes.Random = saved


def seven_zip_ends(
    entries: list[tuple[str, int]],
    total: int,
    password: str | None,
    hide_names: bool,
    seed: bytes,
) -> SevenZipEnds:
    """The ends of a 7z archive of `total` bytes holding `entries` (name, size), LZMA2,
    with data (and with `hide_names` the header too, -mhe) encrypted by `password`."""
    small = io.BytesIO()
    with seeded_random(seed):
        with py7zr.SevenZipFile(
            small, "w", password=password, header_encryption=bool(password and hide_names)
        ) as archive:
            for name, _ in entries:
                archive.writestr(b"\0" * 16, name)
        small.seek(0)
        with py7zr.SevenZipFile(small, "r", password=password) as archive:
            header = archive.header
        header.password = password
        for props in header.files_info.files:  # writestr stamps the time of the run
            for key in ("lastwritetime", "creationtime", "lastaccesstime"):
                if key in props:
                    props[key] = FILETIME_2019
        streams = header.main_streams
        unpacked = sum(size for _, size in entries)
        streams.substreamsinfo.unpacksizes = [size for _, size in entries]
        for folder in streams.unpackinfo.folders:
            folder.unpacksizes = [unpacked] * len(folder.unpacksizes)
        packed = total - SIGNATURE_BYTES
        for _ in range(4):  # the header's size depends on the sizes it holds: settle it
            streams.packinfo.packsizes = [packed]
            tail = io.BytesIO()
            start, length, crc = header.write(
                tail, -packed, encoded=True, encrypted=bool(password and hide_names)
            )
            size = len(tail.getvalue())
            if SIGNATURE_BYTES + packed + size == total:
                break
            packed = total - SIGNATURE_BYTES - size
    sig = SignatureHeader()
    sig.nextheaderofs = packed + start
    sig.calccrc(length, crc)
    out = io.BytesIO()
    sig.write(out)
    return SevenZipEnds(out.getvalue(), tail.getvalue())
