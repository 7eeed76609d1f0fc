"""Media and programs by their first bytes: what a file is when no archive holds it."""

from __future__ import annotations

from pipelines.probe.inspection import MEDIA, PROGRAM

# (offset, bytes, kind, what): the containers and pictures of binary groups, documents,
# executables
_SIGNATURES: tuple[tuple[int, bytes, str, str], ...] = (
    (0, b"\x1a\x45\xdf\xa3", MEDIA, "mkv/webm"),
    (4, b"ftyp", MEDIA, "mp4"),
    (0, b"ID3", MEDIA, "mp3"),
    (0, b"fLaC", MEDIA, "flac"),
    (0, b"OggS", MEDIA, "ogg"),
    (0, b"\xff\xd8\xff", MEDIA, "jpg"),
    (0, b"\x89PNG\r\n\x1a\n", MEDIA, "png"),
    (0, b"GIF8", MEDIA, "gif"),
    (0, b"%PDF-", MEDIA, "pdf"),
    (0, b"\x00\x00\x01\xba", MEDIA, "mpeg-ps"),
    (0, b"MZ", PROGRAM, "exe"),
    (0, b"\x7fELF", PROGRAM, "elf"),
)
_RIFF = {b"AVI ": "avi", b"WAVE": "wav"}
_EPUB = b"mimetypeapplication/epub+zip"
_TS_PACKET = 188


def media_kind(data: bytes) -> tuple[str, str] | None:
    """(kind, what) for a known container's first bytes, else None."""
    for offset, magic, kind, what in _SIGNATURES:
        if data.startswith(magic, offset):
            return kind, what
    if data.startswith(b"RIFF") and data[8:12] in _RIFF:
        return MEDIA, _RIFF[data[8:12]]
    if data.startswith(b"PK\x03\x04") and data.startswith(_EPUB, 30):
        return MEDIA, "epub"
    if len(data) >= 3 * _TS_PACKET and all(data[i * _TS_PACKET] == 0x47 for i in range(3)):
        return MEDIA, "mpeg-ts"
    if _mp3_frames(data):
        return MEDIA, "mp3"
    return None


_BITRATES = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)
_RATES = (44100, 48000, 32000)


def _mp3_frames(data: bytes) -> bool:
    """Two MPEG-1 layer III frames in a row: a bare frame sync alone is too common in
    random bytes to name a file."""
    at = 0
    for _ in range(2):
        if len(data) < at + 4 or data[at] != 0xFF or data[at + 1] & 0xFE != 0xFA:
            return False
        bitrate, rate = data[at + 2] >> 4, (data[at + 2] >> 2) & 3
        if not 0 < bitrate < 15 or rate == 3:
            return False
        padding = (data[at + 2] >> 1) & 1
        at += 144 * _BITRATES[bitrate] * 1000 // _RATES[rate] + padding
    return True


_NZB_ROOT = b"<nzb"
_GZIP = b"\x1f\x8b"


def is_nzb(data: bytes, name: str | None) -> bool:
    """An NZB by its first bytes: an XML document whose root is `nzb` (after its
    declaration and doctype), or gzip under a `.nzb.gz` name (gzip says nothing of
    what it holds)."""
    if data.startswith(_GZIP):
        return (name or "").lower().endswith(".nzb.gz")
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith((b"<?xml", b"<!DOCTYPE", _NZB_ROOT)):
        return False
    at = head.find(_NZB_ROOT)
    return at >= 0 and head[at + 4 : at + 5] in (b" ", b">", b"\n", b"\r", b"\t")
