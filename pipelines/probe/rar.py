"""A RAR volume's listing (RAR 1.5-4 and 5), read by rarfile's header parsers over the
bytes at hand.

The first part of a first volume holds the archive's start: the main header and the
headers of the files that begin there, the first one's data cut at the segment's end.
rarfile parses header by header and seeks past each file's data, so over a short
file-like object it lists what is there and stops at the cut. Every file header is
taken, continued ones (a later volume's) too: rarfile's own list keeps only the first
volume's entries. Comments are skipped: rarfile hands compressed ones to an unrar
program, and they name nothing.
"""

from __future__ import annotations

import io
from typing import Any

import rarfile

from pipelines.probe.listing import Listing

RAR4_SIGNATURE = b"Rar!\x1a\x07\x00"
RAR5_SIGNATURE = b"Rar!\x1a\x07\x01\x00"


class _Rar3Headers(rarfile.RAR3Parser):
    def _read_comment_v3(self, inf: Any, pwd: Any = None) -> None:
        return None

    def _parse_subblocks(self, h: Any, hdata: bytes, pos: int) -> int:
        # old-style comments (RAR 2.x) sit in subblocks: skip past them, unread
        try:
            return int(super()._parse_subblocks(h, hdata, pos))
        except rarfile.Error:
            return len(hdata)


class _Rar5Headers(rarfile.RAR5Parser):
    def _load_comment(self, fd: Any, item: Any) -> None:
        return None


def is_rar(data: bytes) -> bool:
    return data.startswith(RAR4_SIGNATURE) or data.startswith(RAR5_SIGNATURE)


def read_rar(data: bytes) -> Listing:
    """The entries whose headers are whole in `data` (a volume's first bytes)."""
    headers: list[Any] = []
    parser_class = _Rar5Headers if data.startswith(RAR5_SIGNATURE) else _Rar3Headers
    parser = parser_class(
        io.BytesIO(data), None, True, rarfile.DEFAULT_CHARSET, False, headers.append, 0, True
    )
    out = Listing()
    try:
        parser.parse()
    except (rarfile.Error, EOFError, ValueError, OverflowError, IndexError) as exc:
        # a header cut or damaged past the first: what came before stands
        out.detail = f"listing stopped: {type(exc).__name__}: {exc}"
    if parser.has_header_encryption():
        out.encrypted = True  # -hp: names and sizes are encrypted too
        return out
    for h in headers:
        if not isinstance(h, rarfile.RarInfo) or not _is_file(h):
            continue
        out.add(h.filename, h.file_size, bool(h.needs_password()))
    return out


def _is_file(h: Any) -> bool:
    if isinstance(h, rarfile.Rar5FileInfo):
        return bool(h.block_type == rarfile.RAR5_BLOCK_FILE and not h.is_dir())
    return bool(h.type == rarfile.RAR_BLOCK_FILE and not h.is_dir())
