"""Another backbone's overview lines of one group, in its article order, from a cursor.

The fill reads each other backbone once, forward, in step with the primary: from the
cursor the last range left, chunk by chunk, never re-reading what it has taken. A chunk's
good lines come as a `Batch`: their numbers, message-id hashes and where each line lies.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from kernels import scan as sc
from kernels.hashing import hash_spans
from pipelines.corpus.reader import Chunk, CorpusReader, RangeReport


def message_id_hashes(chunk: Chunk, rows: np.ndarray) -> np.ndarray:
    """The 64-bit hash of each given line's Message-ID field (the kernels' one hash)."""
    idx = chunk.lines
    return hash_spans(
        chunk.data,
        idx.field_start[rows, sc.F_MESSAGE_ID],
        idx.field_end[rows, sc.F_MESSAGE_ID],
    )


@dataclass
class Batch:
    """One chunk's good lines at or past the cursor, by article number."""

    chunk: Chunk
    rows: np.ndarray  # line indices into chunk.lines, by number
    number: np.ndarray  # int64
    hashes: np.ndarray  # uint64
    pos: int = 0  # lines before pos are taken

    @property
    def left(self) -> int:
        return len(self.rows) - self.pos

    def lines(self, at: np.ndarray, numbers: list[int]) -> list[bytes]:
        """Lines `at` (of rows) as overview lines of articles `numbers` (CRLF ended), the
        group's own number in their Xref too (the other groups' stay the backbone's: the
        catalog keeps only their names)."""
        idx, data = self.chunk.lines, self.chunk.data
        rows = self.rows[at]
        group = self.chunk.ref.group.encode()
        has_xref = (idx.n_fields[rows] > sc.F_XREF).tolist()
        spans = zip(
            idx.field_end[rows, sc.F_NUMBER].tolist(),
            idx.line_end[rows].tolist(),
            idx.field_start[rows, sc.F_XREF].tolist(),
            idx.field_end[rows, sc.F_XREF].tolist(),
            strict=True,
        )
        out = []
        for number, xref, (rest, end, x0, x1) in zip(numbers, has_xref, spans, strict=True):
            if xref:
                own = _own_number(bytes(data[x0:x1]), group, number)
                out.append(b"%d%s%s%s\r\n" % (number, data[rest:x0], own, data[x1:end]))
            else:
                out.append(b"%d%s\r\n" % (number, data[rest:end]))
        return out


def _own_number(xref: bytes, group: bytes, number: int) -> bytes:
    return _xref_entry(group).sub(group + b":%d" % number, xref, count=1)


@functools.lru_cache(maxsize=256)
def _xref_entry(group: bytes) -> re.Pattern[bytes]:
    return re.compile(rb"(?<=[ \t])" + re.escape(group) + rb":\d+")


def _batch(chunk: Chunk, cursor: int) -> Batch:
    idx = chunk.lines
    rows = np.flatnonzero((idx.status == sc.OK) & (idx.number >= cursor))
    rows = rows[np.argsort(idx.number[rows], kind="stable")]
    return Batch(chunk, rows, idx.number[rows], message_id_hashes(chunk, rows))


class BackboneStream:
    """A group's lines on one other backbone from `cursor` on (None: from its start)."""

    def __init__(self, reader: CorpusReader, group: str, cursor: int | None) -> None:
        self.reader = reader
        self.group = group
        self.cursor = cursor if cursor is not None else 0
        self.report = RangeReport(group, self.cursor, self.cursor)  # problems met reading
        self._chunks: Iterator[Chunk] | None = None
        self._batch: Batch | None = None
        self.ended = False  # no more stored lines (for now: capture may add more)

    def peek(self) -> Batch | None:
        """The batch holding the next line not taken; None at the end of what is stored."""
        while self._batch is None or not self._batch.left:
            if self._batch is not None:  # every line of that chunk taken
                self.cursor = max(self.cursor, self._batch.chunk.last + 1)
                self._batch = None
            chunk = next(self._stored_chunks(), None)
            if chunk is None:
                self.ended = True
                return None
            self._batch = _batch(chunk, self.cursor)
        return self._batch

    def take(self, n: int) -> None:
        """Take the next n lines of the current batch; the cursor moves past them."""
        batch = self._batch
        assert batch is not None and n <= batch.left
        batch.pos += n
        if batch.left:
            self.cursor = int(batch.number[batch.pos])
        else:
            self.cursor = max(self.cursor, batch.chunk.last + 1)

    def _stored_chunks(self) -> Iterator[Chunk]:
        if self._chunks is None:
            self._chunks = self._read_from(self.cursor)
        return self._chunks

    def _read_from(self, cursor: int) -> Iterator[Chunk]:
        """The stored chunks holding articles from cursor on, in order: complete ranges
        and, last, the growing one as far as it is stored."""
        for ref in self.reader.range_refs(self.group):
            if ref.last < cursor:
                continue
            info = self.reader.range_info(ref)
            if info.manifest is None:
                return  # a range with no manifest (still being written): stop before it
            holding = [c for c in info.manifest.chunks if c.last >= cursor]
            if holding:
                after = holding[0].first - 1
                yield from self.reader.read_range(info, self.report, after=after)
            if not info.manifest.complete:
                return  # the growing range: what follows is not stored yet


def stored_end(reader: CorpusReader, group: str) -> tuple[int, float | None] | None:
    """The last article of the group's newest stored chunk on a backbone, and when its
    manifest was written (epoch seconds; None when it does not say); None: nothing stored."""
    for ref in reversed(reader.range_refs(group)):
        info = reader.range_info(ref)
        if info.manifest is None or not info.manifest.chunks:
            continue
        fetched = info.manifest.extra.get("fetched_at")
        try:
            at = dt.datetime.fromisoformat(fetched).timestamp() if fetched else None
        except (TypeError, ValueError):
            at = None
        return info.manifest.chunks[-1].last, at
    return None
