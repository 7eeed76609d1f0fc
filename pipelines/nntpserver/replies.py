"""Overview replies of `serve-nntp` in every variant, built once and kept for the next asker.

A reply is the bytes that follow the status line, terminator included. Building them is
the server's only real CPU cost; keeping them lets one slow machine throttle twenty
connections to a provider's pace without the server itself becoming the bottleneck.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass

from sabctools import yenc_encode

from pipelines.corpus.codec import deflate, inflate, sniff
from pipelines.nntp.wire import stuff
from pipelines.nntpserver.served import ServedCorpus

_CACHE_BYTES = 512 << 20


@dataclass(frozen=True)
class Reply:
    data: bytes  # what follows the status line, terminator included
    lines: int
    compressed: bytes = b""  # the deflate stream alone (xfeature), for cutting


class ReplyCache:
    def __init__(
        self, corpus: ServedCorpus, gzip_flavour: str = "raw", cache_bytes: int = _CACHE_BYTES
    ) -> None:
        if gzip_flavour not in ("raw", "zlib"):
            raise ValueError("gzip flavour must be 'raw' or 'zlib'")
        self.corpus = corpus
        self.gzip_flavour = gzip_flavour
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[tuple[str, int, int, str], Reply] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def overview(self, group: str, first: int, last: int, variant: str) -> Reply:
        key = (group, first, last, variant)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        reply = self._build(group, first, last, variant)
        with self._lock:
            self._cache[key] = reply
            self._bytes += len(reply.data)
            while self._bytes > self.cache_bytes and len(self._cache) > 1:
                _, old = self._cache.popitem(last=False)
                self._bytes -= len(old.data)
        return reply

    def prebuild(self, variant: str) -> int:
        """Build the reply to every stored chunk now (benchmarks: a provider's warm cache)."""
        built = 0
        for name, group in self.corpus.groups.items():
            for chunk in group.chunks:
                self.overview(name, chunk.first, chunk.last, variant)
                built += 1
        return built

    def _build(self, group: str, first: int, last: int, variant: str) -> Reply:
        found = self.corpus.stored_payload(group, first, last)
        if variant in ("xfeature", "xzver") and found is not None and found[1]:
            # exactly a stored chunk: its compressed bytes go out as they are, unread
            stored, lines = found
            if sniff(stored) == "zlib" and not stored[1] & 0x20:
                return self._compressed(stored[2:-4], stored, lines, variant)
        inflated = inflate(found[0]) if found is not None else None
        if inflated is not None and inflated.complete:
            text = inflated.data  # a whole stored chunk: no need to index its lines
        else:
            text = self.corpus.lines(group, first, last)
        lines = text.count(b"\n")
        if variant == "plain":
            return Reply(stuff(text) + b".\r\n", lines)
        if variant == "deflate":
            # A fresh compressor, sync-flushed: its blocks never point back before their
            # start, so they can follow any full-flushed point of a connection's stream.
            obj = zlib.compressobj(1, zlib.DEFLATED, -15)
            body = obj.compress(stuff(text) + b".\r\n") + obj.flush(zlib.Z_SYNC_FLUSH)
            return Reply(body, lines)
        if variant in ("xfeature", "xzver"):
            if not text:
                return Reply(b".\r\n", 0)
            zlib_stream = deflate(text, "zlib", 1)
            return self._compressed(zlib_stream[2:-4], zlib_stream, lines, variant)
        raise ValueError(f"unknown overview variant {variant!r}")

    def _compressed(self, raw: bytes, zlib_stream: bytes, lines: int, variant: str) -> Reply:
        """An xfeature or xzver reply around a deflate stream (raw, and its zlib form)."""
        if variant == "xfeature":
            stream = zlib_stream if self.gzip_flavour == "zlib" else raw
            return Reply(stream + b".\r\n", lines, stream)
        encoded, crc = yenc_encode(raw)
        if not encoded.endswith(b"\r\n"):
            encoded += b"\r\n"
        block = (
            f"=ybegin line=128 size={len(raw)} name=xzver\r\n".encode()
            + encoded
            + f"=yend size={len(raw)} crc32={crc:08x}\r\n".encode()
        )
        return Reply(stuff(block) + b".\r\n", lines)


def cut(reply: Reply, variant: str, at_dot: bool) -> tuple[bytes, bool]:
    """A reply cut short: (bytes to send, whether to drop the connection after them)."""
    if variant == "xfeature" and reply.compressed:
        stream = reply.compressed
        at = stream.find(b".\r\n") if at_dot else -1
        if at >= 0:  # the provider's bug: its framing ends the reply at this '.\r\n'
            return stream[: at + 3], False
        return stream[: len(stream) // 2] + b".\r\n", False
    if variant == "xzver" and reply.lines:
        body = reply.data[:-3]
        at = body.rfind(b"\r\n", 0, len(body) // 2)
        return body[: at + 2] + b".\r\n", False
    # a plain text reply cannot look short: the connection goes down in the middle
    return reply.data[: len(reply.data) // 2], True
