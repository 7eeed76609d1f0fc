"""A corpus split over two backbones, for the fill's tests and its benchmark.

From a corpus of one provider holding everything, `split_corpus` writes a corpus of two
backbones: `a` (the primary) with the same numbers, lacking its oldest articles (a
shorter retention) and a share of the others (take-downs); `b` with every number shifted
by `offset` (Xref too), lacking another share, none that `a` lacks. Which articles each
lacks is decided by a hash of the message-id, so the split is the same every time.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from kernels import scan as sc
from pipelines.corpus.backbones import backbone_root, write_order
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef, plan_chunks, plan_ranges
from pipelines.corpus.manifest import ChunkEntry
from pipelines.corpus.reader import Chunk, CorpusReader
from pipelines.corpus.writer import CorpusWriter

_XREF_NUMBER = re.compile(rb"(\S):(\d+)")


@dataclass
class Split:
    lacking_a: int = 0  # good lines only b holds
    lacking_b: int = 0  # good lines only a holds
    lines: int = 0


@dataclass(frozen=True)
class SplitSettings:
    offset: int = 1_000_037  # b's number = a's + offset (not on the chunk grid)
    retention: int = 300  # a lacks each group's first this many articles
    share: int = 20  # a lacks 1 in `share` of the rest, b another 1 in `share`
    range_size: int = 3000
    chunk_size: int = 500


def split_corpus(source: str, target: str, settings: SplitSettings) -> Split:
    reader = CorpusReader(source)
    a = CorpusWriter(backbone_root(target, "a"))
    b = CorpusWriter(backbone_root(target, "b"))
    fs, root = open_fs(target)
    write_order(fs, root, ["a", "b"])
    split = Split()
    for group in reader.groups():
        infos = [i for i in reader.ranges(group) if i.complete]
        if not infos:
            continue
        low = infos[0].ref.first
        out_b = _Spans(b, group, infos[0].ref.first + settings.offset, settings)
        for info in infos:
            for chunk in reader.read_range(info):
                kept = []
                for i in range(len(chunk.lines)):
                    line, ok, number, mid = _line(chunk, i)
                    split.lines += 1
                    bucket = zlib.crc32(mid) % settings.share if ok else -1
                    lost_a = ok and (number < low + settings.retention or bucket == 0)
                    if lost_a:
                        split.lacking_a += 1
                    else:
                        kept.append(line)
                    if bucket == 1 and not lost_a:
                        split.lacking_b += 1
                    elif ok:
                        out_b.add(number + settings.offset, _shifted(line, settings.offset))
                a.write_chunk(info.ref, chunk.first, chunk.last, b"".join(kept))
            a.write_manifest(info.ref, a.stored_chunks(info.ref), complete=True)
        out_b.close(infos[-1].ref.last + settings.offset)
    return split


def _line(chunk: Chunk, i: int) -> tuple[bytes, bool, int, bytes]:
    idx, data = chunk.lines, chunk.data
    line = bytes(data[int(idx.line_start[i]) : int(idx.line_end[i])]) + b"\r\n"
    ok = bool(idx.status[i] == sc.OK)
    s, e = int(idx.field_start[i, sc.F_MESSAGE_ID]), int(idx.field_end[i, sc.F_MESSAGE_ID])
    return line, ok, int(idx.number[i]), bytes(data[s:e])


def _shifted(line: bytes, offset: int) -> bytes:
    number, rest = line.split(b"\t", 1)
    fields = rest.split(b"\t")
    for k, field in enumerate(fields):
        if field.lower().startswith(b"xref:"):
            fields[k] = _XREF_NUMBER.sub(
                lambda m: m.group(1) + b":" + str(int(m.group(2)) + offset).encode(), field
            )
    return str(int(number) + offset).encode() + b"\t" + b"\t".join(fields)


class _Spans:
    """b's lines into b's own ranges and chunks, as they come (article order)."""

    def __init__(self, writer: CorpusWriter, group: str, first: int, s: SplitSettings) -> None:
        self.writer, self.group, self.settings = writer, group, s
        self.ref = self._range_of(first)
        self.chunks = iter(plan_chunks(self.ref.first, self.ref.last, s.chunk_size))
        self.chunk = next(self.chunks)
        self.lines: list[bytes] = []
        self.entries: list[ChunkEntry] = []

    def _range_of(self, number: int) -> RangeRef:
        a, b = plan_ranges(number, number, self.settings.range_size)[0]
        return RangeRef(self.group, a, b)

    def add(self, number: int, line: bytes) -> None:
        while number > self.chunk[1]:
            self._next_chunk()
        self.lines.append(line)

    def _next_chunk(self) -> None:
        a, b = self.chunk
        self.entries.append(self.writer.write_chunk(self.ref, a, b, b"".join(self.lines)))
        self.lines = []
        nxt = next(self.chunks, None)
        if nxt is None:
            self.writer.write_manifest(self.ref, self.entries, complete=True)
            self.ref = self._range_of(self.ref.last + 1)
            self.chunks = iter(plan_chunks(self.ref.first, self.ref.last, self.settings.chunk_size))
            self.entries = []
            nxt = next(self.chunks)
        self.chunk = nxt

    def close(self, last: int) -> None:
        """Store up to `last` (the source's last range, shifted): b's newest range is as
        far as it goes, growing, like a capture leaves it."""
        while self.chunk[1] < last:
            self._next_chunk()
        a, b = self.chunk
        self.entries.append(self.writer.write_chunk(self.ref, a, b, b"".join(self.lines)))
        complete = self.chunk[1] == self.ref.last
        self.writer.write_manifest(self.ref, self.entries, complete=complete)
