"""A spot's NZB: the bodies of its NZB/Segment articles, concatenated, unescaped, and
raw-inflated (DEFLATE without a zlib header).

Spotnet escapes the three bytes an article body cannot carry as they are, and the escape
byte itself: `=A` NUL, `=B` CR, `=C` LF, `=D` `=`. The line ends the server adds between
lines of the body are not part of the data.
"""

from __future__ import annotations

import re
import zlib

# a spot's NZB inflates to at most this (an NZB of 100 k segments is ~15 MB)
MAX_NZB_BYTES = 64 << 20
_ESCAPES = {b"=A": b"\x00", b"=B": b"\r", b"=C": b"\n", b"=D": b"="}
_ESCAPE = re.compile(rb"=[ABCD]")


class BadSpotNzb(ValueError):
    """A spot's NZB articles do not make an NZB: `reason` for the count."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def body_data(body: bytes) -> bytes:
    """An article body as its lines' bytes, line ends left out (dot-stuffing undone)."""
    lines = body.replace(b"\r\n", b"\n").split(b"\n")
    return b"".join(line[1:] if line.startswith(b"..") else line for line in lines)


def unescape(data: bytes) -> bytes:
    """Spotnet's escapes undone; a `=` followed by anything else is a bad escape."""
    if b"=" in _ESCAPE.sub(b"", data):
        raise BadSpotNzb("bad_escape")
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group(0)], data)


def escape(data: bytes) -> bytes:
    """What a spotter posts (the generator uses it): `=` first, then NUL, CR, LF."""
    return (
        data.replace(b"=", b"=D")
        .replace(b"\x00", b"=A")
        .replace(b"\r", b"=B")
        .replace(b"\n", b"=C")
    )


def spot_nzb(bodies: list[bytes]) -> bytes:
    """The NZB the bodies of a spot's NZB articles (in the spot's order) carry."""
    data = unescape(b"".join(body_data(b) for b in bodies))
    d = zlib.decompressobj(-15)
    try:
        out = d.decompress(data, MAX_NZB_BYTES)
    except zlib.error as e:
        raise BadSpotNzb("bad_deflate", str(e)) from e
    if d.unconsumed_tail:
        raise BadSpotNzb("too_large")
    if not d.eof:
        raise BadSpotNzb("truncated_deflate")
    return out
