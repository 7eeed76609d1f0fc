"""A yEnc article body: `=ybegin` (`=ypart`), the encoded lines, `=yend` with the CRC-32."""

from __future__ import annotations

from sabctools import yenc_encode

LINE_LENGTH = 128


def yenc_article(
    data: bytes,
    name: str,
    part: int,
    total: int,
    file_size: int,
    begin: int,
    multipart: bool | None = None,
) -> bytes:
    """The body a poster sends for `data`, part `part` of `total` of a file of
    `file_size` bytes starting at byte `begin` (1-based); CRLF lines, no final dot.
    Multipart (=ypart, pcrc32) when `total` > 1, unless `multipart` says otherwise."""
    encoded, crc = yenc_encode(data)
    if not encoded.endswith(b"\r\n"):
        encoded += b"\r\n"
    if total > 1 if multipart is None else multipart:
        head = (
            f"=ybegin part={part} total={total} line={LINE_LENGTH} size={file_size} name={name}\r\n"
            f"=ypart begin={begin} end={begin + len(data) - 1}\r\n"
        )
        tail = f"=yend size={len(data)} part={part} pcrc32={crc:08x}\r\n"
    else:
        head = f"=ybegin line={LINE_LENGTH} size={file_size} name={name}\r\n"
        tail = f"=yend size={len(data)} crc32={crc:08x}\r\n"
    return head.encode() + encoded + tail.encode()
