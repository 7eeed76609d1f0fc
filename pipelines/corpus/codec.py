"""Compressed chunk streams: zlib and gzip told apart by their bytes, inflated fast.

ISA-L (`isal`) inflates several times faster than zlib; plain zlib is the fallback.
A stream that is cut short or corrupt is inflated as far as it goes: the caller gets
the bytes before the break and a flag, never an exception.

An empty chunk is the codec's empty stream (`empty_stream`), which every zlib or gzip
reader takes. Captures made before that rule stored empty spans as 0-byte files; those
are still read, as the empty span they stand for (`inflate`, `sniff` -> 'empty').
"""

from __future__ import annotations

import contextlib
import zlib
from dataclasses import dataclass
from types import ModuleType

_fast_zlib: ModuleType | None
try:  # pragma: no cover - depends on the install
    from isal import isal_zlib as _fast_zlib

    INFLATER = "isal"
except ImportError:  # pragma: no cover
    _fast_zlib = None
    INFLATER = "zlib"

_GZIP_MAGIC = b"\x1f\x8b"
_PIECE = 16384


@dataclass(frozen=True)
class Inflated:
    data: bytes
    complete: bool  # the stream ended where it should, without error
    error: str = ""


def sniff(payload: bytes) -> str:
    """'gzip', 'zlib', 'empty' or 'unknown', from the first bytes alone."""
    if not payload:
        return "empty"
    if payload[:2] == _GZIP_MAGIC:
        return "gzip"
    if len(payload) >= 2 and payload[0] & 0x0F == 8 and (payload[0] << 8 | payload[1]) % 31 == 0:
        return "zlib"
    return "unknown"


def _wbits(kind: str) -> int:
    return 31 if kind == "gzip" else 15


def inflate(payload: bytes) -> Inflated:
    kind = sniff(payload)
    if kind == "empty":
        # a 0-byte chunk file, as older captures stored an empty span: read as that span,
        # whole; the writer never makes one again (`empty_stream`)
        return Inflated(b"", True)
    if kind == "unknown":
        return Inflated(b"", False, "neither a zlib nor a gzip stream")
    zmod: ModuleType = _fast_zlib if _fast_zlib is not None else zlib
    try:
        obj = zmod.decompressobj(_wbits(kind))
        out = obj.decompress(payload) + obj.flush()
        if obj.eof and not obj.unused_data:
            return Inflated(out, True)
        if obj.eof and kind == "gzip":
            # a gzip file may hold several members (concatenated appends)
            return _inflate_members(payload, out, obj.unused_data)
        if obj.eof:
            return Inflated(out, False, f"{len(obj.unused_data)} bytes after the end of the stream")
    except Exception:  # isal raises its own error types; the salvage path says what broke
        pass
    return _salvage(payload, kind)


def _inflate_members(payload: bytes, first: bytes, rest: bytes) -> Inflated:
    out = [first]
    while rest:
        part = _salvage(rest, "gzip")
        out.append(part.data)
        if not part.complete:
            return Inflated(b"".join(out), False, part.error)
        obj = zlib.decompressobj(31)
        obj.decompress(rest)
        rest = obj.unused_data
    return Inflated(b"".join(out), True)


def _salvage(payload: bytes, kind: str) -> Inflated:
    """Inflate a broken stream with plain zlib as far as it goes, byte-exact at the break."""
    obj = zlib.decompressobj(_wbits(kind))
    out: list[bytes] = []
    pos = 0
    while pos < len(payload) and not obj.eof:
        piece = payload[pos : pos + _PIECE]
        try:
            out.append(obj.decompress(piece))
        except zlib.error:
            # redo the failing piece one byte at a time to keep every byte before the break
            return _salvage_bytes(payload, kind, pos, out)
        pos += len(piece)
    if obj.eof:
        return Inflated(
            b"".join(out), not obj.unused_data, "" if not obj.unused_data else "trailing bytes"
        )
    with contextlib.suppress(zlib.error):
        out.append(obj.flush())
    return Inflated(b"".join(out), False, "stream cut short")


def _salvage_bytes(payload: bytes, kind: str, good: int, out: list[bytes]) -> Inflated:
    obj = zlib.decompressobj(_wbits(kind))
    kept = [obj.decompress(payload[:good])] if good else []
    err = "corrupt stream"
    for i in range(good, min(good + _PIECE, len(payload))):
        try:
            kept.append(obj.decompress(payload[i : i + 1]))
        except zlib.error as exc:
            err = f"corrupt stream at byte {i}: {exc}"
            break
    return Inflated(b"".join(kept), False, err)


def deflate(data: bytes, codec: str = "zlib", level: int = 2) -> bytes:
    """Compress lines for storage; ISA-L's fast levels (0-3) where available."""
    if codec not in ("zlib", "gzip"):
        raise ValueError(f"unknown codec {codec!r}")
    if _fast_zlib is not None:
        obj = _fast_zlib.compressobj(min(level, 3), _fast_zlib.DEFLATED, _wbits(codec))
    else:
        obj = zlib.compressobj(level, zlib.DEFLATED, _wbits(codec))
    return obj.compress(data) + obj.flush()


def empty_stream(codec: str) -> bytes:
    """The codec's stream of no bytes: what an empty chunk holds (CORPUS.md).

    Not a 0-byte file: zlib, gzip and every other reader take those for a stream cut short.
    """
    return deflate(b"", codec)
