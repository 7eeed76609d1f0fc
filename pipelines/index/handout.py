"""What the window hands out at once: releases and their files as columns, not objects.

Most releases go from the window's tables straight to the output: their files are rows
copied from the tables (`FileBlock.files`), their texts lists, their new segments spans
of the range's parsed chunks. Making an object per file and per segment cost as much as the
rest of the hand-out together. Only releases that may gather into an album (and the
albums themselves) become OpenRelease and OpenFile objects: albums merge and carry them.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

from kernels import window as wk
from pipelines.index.parsed_chunk import ParsedChunk
from pipelines.index.release import ROW_FIELDS, OpenFile, OpenRelease, Piece

T = TypeVar("T")
_NO_ROWS = np.zeros(0, np.int64)
_FILE_FIELDS = (
    "key", "file_index", "file_total", "part_total", "ext_class", "volume", "random_name",
    "first_date", "last_date", "first_article", "last_article", "nbytes", "count", "last_part",
)  # fmt: skip


def pick(values: list[Any], rows: list[int]) -> list[Any]:
    """values[row] for each row (one C-level call, not a Python step a row)."""
    if len(rows) > 1:
        return list(operator.itemgetter(*rows)(values))
    return [values[row] for row in rows]


def _renumbered(by_row: dict[int, T], renumber: np.ndarray) -> dict[int, T]:
    """The entries whose row stays, under its new number (-1: the row goes)."""
    return {int(renumber[k]): v for k, v in by_row.items() if renumber[k] >= 0}


def _rows_of(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The rows of runs starts[i], starts[i] + 1, ... counts[i] each, end to end."""
    before = np.cumsum(counts) - counts
    return np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - before, counts)


@dataclass
class FileBlock:
    """Releases handed out together: a row per release, a row per file, a span per run of
    new segments. Release j's files are rows offsets[j]:offsets[j + 1], in placing order."""

    releases: np.ndarray  # wk.RELEASE rows
    offsets: np.ndarray  # int64, one more than releases
    files: np.ndarray  # wk.FILE rows
    subject: list[bytes]
    poster: list[bytes]
    name: list[bytes]
    xref: list[bytes]
    # the segments not handed out before: file row, chunk, rows start:stop; by file, each
    # file's in reading order
    span_file: np.ndarray
    span_seq: np.ndarray
    span_start: np.ndarray
    span_stop: np.ndarray
    chunks: dict[int, ParsedChunk]  # by seq: the chunks the spans and ids are in
    # per file row: the message-ids of part 1 and the top part, where kept as bytes
    kept_ids: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)
    # per file row: copies of segments written before, for an album to come
    carried: dict[int, list[Piece]] = field(default_factory=dict)
    batch_total: np.ndarray = field(default_factory=lambda: np.zeros(0, np.bool_))

    def __len__(self) -> int:
        return len(self.releases)

    @staticmethod
    def empty() -> FileBlock:
        return FileBlock(
            np.zeros(0, wk.RELEASE), np.zeros(1, np.int64), np.zeros(0, wk.FILE),
            [], [], [], [], _NO_ROWS, _NO_ROWS, _NO_ROWS, _NO_ROWS, {},
        )  # fmt: skip

    def file_counts(self) -> np.ndarray:
        return np.diff(self.offsets)

    def representatives(self) -> np.ndarray:
        """Per release, the file row whose subject names it: the first by file counter,
        else by article (the first of equals, in placing order)."""
        if not len(self):
            return _NO_ROWS
        files = self.files
        index = files["file_index"].astype(np.int64)
        counted = np.where(index > 0, index, 1 << 30)
        release = np.repeat(np.arange(len(self)), self.file_counts())
        order = np.lexsort((files["first_article"], counted, release))
        return order[self.offsets[:-1]]

    def part_ids(self, rows: np.ndarray) -> tuple[list[bytes], list[bytes]]:
        """The message-ids of part 1 and of the top part of these file rows (b"" where
        unseen): kept as bytes, else read from the chunk the file row points into."""
        first = [b""] * len(rows)
        last = [b""] * len(rows)
        if self.kept_ids:
            for j, row in enumerate(rows.tolist()):
                kept = self.kept_ids.get(row)
                if kept is not None:
                    first[j], last[j] = kept
        ids = _MessageIds(self.chunks)
        for which, out in (("first", first), ("last", last)):
            chunk_of = self.files[f"{which}_chunk"][rows]
            row_of = self.files[f"{which}_row"][rows]
            seen = np.flatnonzero(chunk_of >= 0)
            # chunk by chunk: each chunk's ids read by one slice each
            seen = seen[np.argsort(chunk_of[seen], kind="stable")]
            cuts = np.flatnonzero(np.diff(chunk_of[seen])) + 1
            for at in np.split(seen, cuts) if len(seen) else []:
                values = ids.of(int(chunk_of[at[0]]), row_of[at])
                for j, value in zip(at.tolist(), values, strict=True):
                    out[j] = value
        return first, last

    def file_rows(self, releases: np.ndarray) -> np.ndarray:
        """The file rows of these releases, end to end."""
        return _rows_of(self.offsets[releases], self.file_counts()[releases])

    def pieces(self, rows: np.ndarray) -> dict[int, list[Piece]]:
        """These file rows' spans as Pieces of the chunks, per row."""
        out: dict[int, list[Piece]] = {row: [] for row in rows.tolist()}
        # a mask of the rows, not np.isin: that sorted the block's spans every call
        wanted = np.zeros(len(self.files), np.bool_)
        wanted[rows] = True
        at = np.flatnonzero(wanted[self.span_file])
        spans = zip(
            self.span_file[at].tolist(), self.span_seq[at].tolist(),
            self.span_start[at].tolist(), self.span_stop[at].tolist(), strict=True,
        )  # fmt: skip
        for row, seq, start, stop in spans:
            out[row].append(Piece(self.chunks[seq], start, stop))
        return out

    def open_files(self, rows: np.ndarray, with_pieces: bool = True) -> list[OpenFile]:
        """These file rows as OpenFile objects (with their pieces, or none)."""
        pieces = self.pieces(rows) if with_pieces else {}
        c = {name: self.files[name][rows].tolist() for name in _FILE_FIELDS}
        first_ids, last_ids = self.part_ids(rows)
        out = []
        for j, row in enumerate(rows.tolist()):
            # positional: OpenFile's field order (keywords cost 3x as much, per file)
            out.append(
                OpenFile(
                    c["key"][j], self.subject[row], self.poster[row], self.name[row],
                    self.xref[row], c["file_index"][j], c["file_total"][j], c["part_total"][j],
                    c["ext_class"][j], c["volume"][j], c["random_name"][j], c["first_date"][j],
                    c["last_date"][j], c["first_article"][j], c["last_article"][j],
                    c["nbytes"][j], c["count"][j], pieces.get(row, []),
                    self.carried.get(row, []), first_ids[j], c["last_part"][j], last_ids[j],
                )
            )  # fmt: skip
        return out

    def open_releases(self, which: np.ndarray | None = None) -> list[OpenRelease]:
        """These releases (all by default) as the objects albums and the tests read."""
        js = np.arange(len(self)) if which is None else which
        if not len(js):
            return []
        files = self.open_files(self.file_rows(js))
        bounds = np.concatenate(([0], np.cumsum(self.file_counts()[js]))).tolist()
        r = {name: self.releases[name][js].tolist() for name in ROW_FIELDS}
        return [
            OpenRelease.from_row(r, j, files=files[bounds[j] : bounds[j + 1]])
            for j in range(len(js))
        ]

    def without(self, drop: np.ndarray) -> FileBlock:
        """The block without these releases (their files and spans go with them)."""
        if not len(drop):
            return self
        keep = np.ones(len(self), np.bool_)
        keep[drop] = False
        counts = self.file_counts()
        file_keep = np.repeat(keep, counts)
        rows = np.flatnonzero(file_keep)
        renumber = np.full(len(self.files), -1, np.int64)
        renumber[rows] = np.arange(len(rows))
        span_keep = file_keep[self.span_file]
        rows_list = rows.tolist()

        def texts(values: list[bytes]) -> list[bytes]:
            return pick(values, rows_list)

        return FileBlock(
            self.releases[keep],
            np.concatenate(([0], np.cumsum(counts[keep]))).astype(np.int64),
            self.files[rows],
            texts(self.subject),
            texts(self.poster),
            texts(self.name),
            texts(self.xref),
            renumber[self.span_file[span_keep]],
            self.span_seq[span_keep],
            self.span_start[span_keep],
            self.span_stop[span_keep],
            self.chunks,
            _renumbered(self.kept_ids, renumber),
            _renumbered(self.carried, renumber),
            self.batch_total[keep] if len(self.batch_total) else self.batch_total,
        )


class _MessageIds:
    """Message-ids out of the chunks' columns: a slice of the column's bytes each (Arrow's
    take, a call per chunk, cost more than the slices for the few rows of each)."""

    def __init__(self, chunks: dict[int, ParsedChunk]):
        self.chunks = chunks
        self.columns: dict[int, tuple[np.ndarray, memoryview]] = {}

    def of(self, seq: int, rows: np.ndarray) -> list[bytes]:
        """The message-ids of these rows of chunk seq."""
        ids = self.chunks[seq].message_id
        if ids.type not in (pa.binary(), pa.string()):  # not 32-bit offsets
            return [value.encode() if isinstance(value, str) else value
                    for value in ids.take(rows).to_pylist()]  # fmt: skip
        column = self.columns.get(seq)
        if column is None:
            _, offsets, data = ids.buffers()
            bounds = np.frombuffer(offsets, np.int32)[ids.offset : ids.offset + len(ids) + 1]
            column = self.columns[seq] = (bounds, memoryview(data) if data else memoryview(b""))
        bounds, data = column
        starts, ends = bounds[rows].tolist(), bounds[rows + 1].tolist()
        return [bytes(data[a:z]) for a, z in zip(starts, ends, strict=True)]


@dataclass
class HandOut:
    """One hand-out of the window: most releases as a block, albums (and the releases
    that may still gather into one) as objects."""

    block: FileBlock
    releases: list[OpenRelease]

    def open_releases(self) -> list[OpenRelease]:
        """Every release handed out, as objects (the block's made now)."""
        return [*self.block.open_releases(), *self.releases]
