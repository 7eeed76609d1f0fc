"""Compressed overview replies, read off the wire and turned into storable corpus streams.

Providers offer three ways to shrink an overview reply (DESIGN.md, Capture):

- `XFEATURE COMPRESS GZIP`: once enabled, an overview reply's data is one deflate stream
  (raw deflate at most providers; some send a zlib or gzip stream) followed by `.\r\n`
  outside the compressed bytes (with the `TERMINATOR` flavour, inside them).
- `XZVER`: the reply is a yEnc-encoded raw deflate stream in `=ybegin`/`=yend` lines,
  dot-terminated like any text block.
- RFC 8054 `COMPRESS DEFLATE`: the whole connection is deflated (see `wire.py`); the
  reply inside is plain text.

The first two are stored as they arrived: a zlib or gzip stream is kept byte for byte,
and a raw deflate stream gets a 2-byte zlib header and its Adler-32 trailer, so the
corpus holds the server's own compressed bytes without re-compressing them. Only a
plain reply (plain `OVER`, `COMPRESS DEFLATE`) or a compressed one whose text still
holds a dot line (stuffing or the terminator) is compressed here.

Every compressed reply is inflated to its end as it arrives: that is how a reply cut
short (providers cut at a `.\r\n` in the compressed bytes) is told from a whole one.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from pipelines.corpus.codec import deflate, sniff
from pipelines.nntp.errors import ProtocolError, TruncatedReply
from pipelines.nntp.wire import Wire, unstuff

_zmod: ModuleType
try:  # ISA-L inflates several times faster than zlib
    from isal import isal_zlib as _zmod
except ImportError:  # pragma: no cover
    _zmod = zlib
_INFLATE_ERRORS = (zlib.error, _zmod.error)

ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KiB window, no dictionary, fastest level
VARIANTS = ("plain", "xfeature", "xzver", "deflate")
_TEXT_PIECE = 1 << 18


@dataclass(frozen=True)
class StoredReply:
    """One overview reply as the corpus stores it."""

    payload: bytes  # a zlib or gzip stream, or b"" for an empty span
    codec: str  # 'zlib' or 'gzip'
    lines: int
    text_bytes: int  # the inflated size
    recompressed: bool  # False when the server's compressed bytes were kept


class InflateCheck:
    """Inflates a compressed stream piece by piece: where it ends, its lines, its checksum.

    Nothing inflated is kept: the stream is counted as it passes, so a 100 k-line chunk
    costs no more memory than its compressed bytes.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind  # 'zlib', 'gzip' or 'raw'
        wbits = {"zlib": 15, "gzip": 31, "raw": -15}[kind]
        self._obj: Any = _zmod.decompressobj(wbits)
        self.pieces: list[bytes] = []
        self.lines = 0
        self.text_bytes = 0
        self.adler = 1
        # A stream that starts with a dot line or ends with one (the TERMINATOR flavour puts
        # the '.' line inside the stream) must be rewritten. Overview lines start with their
        # number, so only the ends are looked at: searching every byte for "\n." would cost
        # as much as the inflating itself.
        self.dot_line = False
        self._tail = b""
        self.unused = b""

    @property
    def eof(self) -> bool:
        return bool(self._obj.eof)

    def feed(self, piece: bytes) -> None:
        if self.eof:
            self.unused += piece
            return
        self.pieces.append(piece)
        data = piece
        while True:
            try:
                # bounded output: the text is counted while still in the CPU's cache
                text = self._obj.decompress(data, _TEXT_PIECE)
            except _INFLATE_ERRORS as exc:
                raise TruncatedReply(f"compressed overview does not inflate: {exc}") from exc
            data = self._obj.unconsumed_tail
            self._count(text)
            if self._obj.eof:
                self.unused = self._obj.unused_data
                if self.unused:
                    self.pieces[-1] = piece[: len(piece) - len(self.unused)]
                return
            if not data and len(text) < _TEXT_PIECE:
                return  # a full piece may leave text pending inside: drain it first

    def _count(self, text: bytes) -> None:
        if text:
            self.lines += text.count(b"\n")
            if self.kind == "raw":
                self.adler = _zmod.adler32(text, self.adler)
            if self.text_bytes == 0 and text[:1] == b".":
                self.dot_line = True
            self.text_bytes += len(text)
            self._tail = (self._tail + text[-5:])[-5:]

    def stored(self) -> StoredReply:
        """The stream as the corpus keeps it (call once `eof`)."""
        if not self.eof:
            raise TruncatedReply("compressed overview ended before its stream did")
        compressed = b"".join(self.pieces)
        if self._tail[-1:] != b"\n" and self.text_bytes:
            self.lines += 1
        if self._tail == b".\r\n" or self._tail.endswith(b"\n.\r\n"):
            self.dot_line = True
        if self.dot_line:
            return _recompress(_inflate_all(compressed, self.kind))
        if self.kind == "raw":
            payload = ZLIB_HEADER + compressed + self.adler.to_bytes(4, "big")
            return StoredReply(payload, "zlib", self.lines, self.text_bytes, False)
        return StoredReply(compressed, self.kind, self.lines, self.text_bytes, False)


def _inflate_all(compressed: bytes, kind: str) -> bytes:
    wbits = {"zlib": 15, "gzip": 31, "raw": -15}[kind]
    return bytes(_zmod.decompress(compressed, wbits))


def _recompress(text: bytes) -> StoredReply:
    """Text that still holds dot lines: drop an inner terminator, unstuff, compress anew."""
    if text == b".\r\n":
        text = b""
    elif text.endswith(b"\r\n.\r\n"):
        text = text[:-3]
    return store_text(unstuff(text))


def store_text(text: bytes, level: int = 1) -> StoredReply:
    """Plain overview text (unstuffed, no terminator) compressed for the corpus."""
    if not text:
        return StoredReply(b"", "zlib", 0, 0, True)
    lines = text.count(b"\n") + (0 if text.endswith(b"\n") else 1)
    return StoredReply(deflate(text, "zlib", level), "zlib", lines, len(text), True)


def stream_kind(head: bytes) -> str:
    """'zlib', 'gzip' or 'raw' for the first bytes of a compressed reply."""
    kind = sniff(head)
    return kind if kind in ("zlib", "gzip") else "raw"


def read_xfeature_reply(wire: Wire, marked: bool, cut_grace: float) -> StoredReply:
    """The data of an overview reply under `XFEATURE COMPRESS GZIP` (after its 224 line).

    `marked`: the status line said `COMPRESS=GZIP`. A reply that starts with a digit and
    is not marked was sent plain, as some servers do for small replies.
    """
    while len(wire.buf) < 3:
        wire.fill()
    head = bytes(wire.buf[:3])
    if head == b".\r\n":
        del wire.buf[:3]
        return StoredReply(b"", "zlib", 0, 0, False)
    if not marked and sniff(head) not in ("zlib", "gzip") and head[:1].isdigit():
        return store_text(wire.read_block())
    check = InflateCheck(stream_kind(head))
    tail = b""
    piece = wire.take()
    while True:
        check.feed(piece)
        if check.eof:
            break
        tail = (tail + piece[-3:])[-3:]
        # A provider cuts the stream where its compressed bytes happen to hold `.\r\n`:
        # the bytes stop there and nothing else comes.
        if tail == b".\r\n" and not wire.more_within(cut_grace):
            raise TruncatedReply("compressed overview cut short at a '.\\r\\n' in its bytes")
        piece = wire.read_raw()
    stored = check.stored()
    rest = check.unused
    if stored.recompressed and check.dot_line and rest[:3] != b".\r\n":
        # the TERMINATOR flavour: the terminator was inside the stream, nothing follows
        wire.push_back(rest)
        return stored
    while len(rest) < 3:
        wire.fill()
        rest += wire.take()
    if rest[:3] != b".\r\n":
        raise ProtocolError(f"compressed overview not followed by '.': {rest[:16]!r}")
    wire.push_back(rest[3:])
    return stored


def read_xzver_reply(wire: Wire) -> StoredReply:
    """The data of an `XZVER` reply: yEnc lines around a raw deflate (or zlib) stream."""
    block = wire.read_block()
    if not block:
        return StoredReply(b"", "zlib", 0, 0, False)
    head_end = block.find(b"\r\n")
    header = block[:head_end]
    trailer_at = block.rfind(b"\r\n=yend", head_end)
    if not header.startswith(b"=ybegin") or trailer_at < 0:
        raise TruncatedReply("XZVER reply lacks its =ybegin or =yend line")
    trailer = block[trailer_at + 2 :].strip()
    body = ydecode(block[head_end + 2 : trailer_at + 2])
    fields = _yenc_fields(trailer)
    if "size" in fields and int(fields["size"]) != len(body):
        raise TruncatedReply(f"XZVER body is {len(body)} bytes, =yend says {fields['size']}")
    crc = fields.get("crc32") or fields.get("pcrc32")
    if crc is not None and int(crc, 16) != zlib.crc32(body):
        raise TruncatedReply("XZVER body fails its CRC-32")
    check = InflateCheck(stream_kind(body[:3]))
    check.feed(body)
    if not check.eof:
        raise TruncatedReply("XZVER stream does not inflate to its end")
    return check.stored()


def _yenc_fields(line: bytes) -> dict[str, str]:
    out = {}
    for token in line.decode("latin-1").split()[1:]:
        key, _, value = token.partition("=")
        out[key] = value
    return out


def ydecode(text: bytes) -> bytes:
    """Decode yEnc data lines (dots already unstuffed); vectorized with numpy.

    Every byte is the data byte + 42; '=' escapes the next byte, which carries + 64 more;
    CR and LF only end lines (yEnc escapes them in the data).
    """
    arr = np.frombuffer(text, dtype=np.uint8)
    escape = arr == 61
    drop = escape | (arr == 13)
    drop |= arr == 10
    out = arr - np.uint8(42)
    at = np.flatnonzero(escape) + 1
    if len(at):
        if at[-1] >= len(arr) or drop[at[-1]]:
            raise ProtocolError("yEnc data ends a line with a lone escape")
        out[at] -= np.uint8(64)
    return out[~drop].tobytes()
