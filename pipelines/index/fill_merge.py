"""A primary chunk with the other backbones' articles put in (`fill.py`): one text in
article order, scanned again, and the range's line counts following it."""

from __future__ import annotations

import numpy as np

from kernels import scan as sc
from pipelines.corpus.reader import Chunk, RangeReport


def merge(chunk: Chunk, dropped: set[int], fills: dict[int, bytes]) -> Chunk:
    """The chunk's lines but `dropped`, with `fills` (number -> line) in article order."""
    idx = chunk.lines
    numbers = np.fromiter(sorted(fills), np.int64, len(fills))
    if not dropped and bool(np.all(idx.number[1:] >= idx.number[:-1])):
        # the primary's lines in order (as servers send them): its text is cut where the
        # fills go and they are put in, a slice per fill
        text = _insert(chunk.data, idx, numbers, [fills[int(n)] for n in numbers])
    else:
        text = _merge_lines(chunk, dropped, fills)
    lines = sc.scan_chunk(text, chunk.first, chunk.last, terminated=True)
    return Chunk(chunk.ref, chunk.file, chunk.first, chunk.last, text, lines, chunk.whole)


def _insert(data: bytes, idx: sc.LineIndex, numbers: np.ndarray, lines: list[bytes]) -> bytes:
    view = memoryview(data)
    end = len(data)
    if end and data[end - 1 : end] != b"\n":
        view, end = memoryview(bytes(data) + b"\r\n"), end + 2
    cuts = np.searchsorted(idx.number, numbers, side="right")
    starts = np.append(idx.line_start, end)[cuts].tolist() if len(idx) else [end] * len(cuts)
    pieces: list[bytes | memoryview] = []
    at = 0
    for cut, line in zip(starts, lines, strict=True):
        pieces += (view[at:cut], line)
        at = cut
    pieces.append(view[at:end])
    return b"".join(pieces)


def _merge_lines(chunk: Chunk, dropped: set[int], fills: dict[int, bytes]) -> bytes:
    """The general case, line by line: lines out of order, or some dropped."""
    idx = chunk.lines
    # a bad line keeps its place after the good line before it
    keys = np.maximum.accumulate(np.where(idx.number >= 0, idx.number, -1))
    data = chunk.data
    rows = [
        (int(keys[i]), 0, bytes(data[int(idx.line_start[i]) : int(idx.line_end[i])]) + b"\r\n")
        for i in range(len(idx))
        if i not in dropped
    ]
    rows += [(number, 1, line) for number, line in fills.items()]
    rows.sort(key=lambda r: (r[0], r[1]))
    return b"".join(r[2] for r in rows)


def recount(report: RangeReport, old: sc.LineIndex, new: sc.LineIndex) -> None:
    """The range's line counts with the merged chunk's lines instead of the primary's."""
    before, after = RangeReport("", 0, 0), RangeReport("", 0, 0)
    before.count_lines(old)
    after.count_lines(new)
    report.lines += after.lines - before.lines
    report.lines_ok += after.lines_ok - before.lines_ok
    report.non_utf8_lines += after.non_utf8_lines - before.non_utf8_lines
    for name in set(before.bad_lines) | set(after.bad_lines):
        n = report.bad_lines.get(name, 0) + after.bad_lines.get(name, 0)
        n -= before.bad_lines.get(name, 0)
        if n:
            report.bad_lines[name] = n
        else:
            report.bad_lines.pop(name, None)
