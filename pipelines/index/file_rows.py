"""The rows of `release_files`: a file each, with its segments' part numbers, sizes and
message-ids as list columns.

A file row is kept as its own columns plus the spans of places its segments take in the
range's segment store (the columns of every chunk a written file drew on, kept once);
the table is made a row group at a time at the end, each group's segments gathered from
the store by a kernel (`kernels.file_segments`, `kernels.gather`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kernels.file_segments import file_segments
from kernels.gather import binary_columns, gather_values
from pipelines import naming
from pipelines.catalog import schema
from pipelines.catalog.writer import row_group_size
from pipelines.index.handout import FileBlock
from pipelines.index.parsed_chunk import ParsedChunk
from pipelines.index.release import OpenFile

# release_files without its segment columns: what a file row holds before its segments
_FILE_SCHEMA = pa.schema(
    [f for f in schema.RELEASE_FILES if not f.name.startswith("seg_") and f.name != "bytes"]
)
_FILE_COLUMNS: list[str] = [name for name in _FILE_SCHEMA.names if name != "written_range"]
_TEXTS = frozenset({"name", "subject", "poster"})
_NO_BYTES = np.zeros(0, np.uint8)


class FileRows:
    """The range's release_files rows: their own columns (plain lists, a value per file,
    texts as bytes: made text column-wise) and their segments as spans of the store."""

    def __init__(self, written_range: int) -> None:
        self.written_range = written_range
        self.written = 0  # file rows so far
        self.columns: dict[str, list[Any]] = {name: [] for name in _FILE_COLUMNS}
        # per span its file row, first place and length, files' spans in reading order
        self.span_file: list[int] = []
        self.span_start: list[int] = []
        self.span_length: list[int] = []
        # the same, for the file rows of blocks: (file rows, places, lengths) per block
        self._span_blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.store = SegmentStore()

    def add(self, key: bytes, f: OpenFile, groups: list[str], album: bool, finished: bool) -> None:
        """The file's row with the segments not written under this key before.

        An album writes its members' carried segments too (they went out under the
        members' own keys); a finished release will join no album, so it drops them.
        """
        pieces = [*f.carried, *f.pieces] if album else f.pieces
        f.pieces = []
        if album or finished:
            f.carried = []
        if not pieces:
            return
        row = self.written
        self.written += 1
        for p in pieces:
            place = self.store.place_of(p.chunk)
            if p.rows is None:
                self.span_file.append(row)
                self.span_start.append(place + p.start)
                self.span_length.append(p.stop - p.start)
            else:
                starts, lengths = spans_of(p.rows)
                self.span_file.extend([row] * len(starts))
                self.span_start.extend((starts + place).tolist())
                self.span_length.extend(lengths.tolist())
        c = self.columns
        c["release_key"].append(key)
        c["name"].append(f.name)
        c["subject"].append(f.subject)
        c["poster"].append(f.poster)
        c["date"].append(f.first_date)
        c["groups"].append(groups)
        c["file_index"].append(f.file_index if f.file_index > 0 else None)
        c["part_total"].append(f.part_total)

    def add_block(self, block: FileBlock, keys: list[bytes], file_groups: list[list[str]]) -> None:
        """The block's file rows that have segments not written before, and their spans."""
        files = block.files
        written = np.flatnonzero(np.bincount(block.span_file, minlength=len(files)) > 0)
        row_of = np.full(len(files), -1, np.int64)
        row_of[written] = self.written + np.arange(len(written))
        self.written += len(written)
        seqs, chunk_of_span = np.unique(block.span_seq, return_inverse=True)
        places = np.array([self.store.place_of(block.chunks[q]) for q in seqs.tolist()], np.int64)
        self._span_blocks.append(
            (
                row_of[block.span_file],
                places[chunk_of_span] + block.span_start,
                block.span_stop - block.span_start,
            )
        )
        release_of = np.repeat(np.arange(len(block)), block.file_counts())[written]
        every = len(written) == len(files)  # the usual case: each file has new segments
        rows = written.tolist()
        c = self.columns
        c["release_key"].extend([keys[j] for j in release_of.tolist()])
        for name, values in (("name", block.name), ("subject", block.subject),
                             ("poster", block.poster), ("groups", file_groups)):  # fmt: skip
            c[name].extend(values if every else [values[k] for k in rows])
        c["date"].extend(files["first_date"][written].tolist())
        index = files["file_index"][written].tolist()
        c["file_index"].extend([i if i > 0 else None for i in index])
        c["part_total"].extend(files["part_total"][written].tolist())

    def row_groups(self) -> Iterator[pa.Table]:
        """release_files, a row group at a time: the files sorted once, then each group's
        segments gathered from the store and sorted by part number within each file."""
        c = self.columns
        rows = len(c["release_key"])
        arrays = {
            name: texts(c[name])
            if name in _TEXTS
            else pa.array(c[name], _FILE_SCHEMA.field(name).type)
            for name in _FILE_COLUMNS
        }
        arrays["written_range"] = pa.array(np.full(rows, self.written_range, np.int64))
        base = pa.table(arrays).select(_FILE_SCHEMA.names).cast(_FILE_SCHEMA)
        self.columns = {name: [] for name in _FILE_COLUMNS}
        by = [("release_key", "ascending"), ("name", "ascending"), ("date", "ascending")]
        file_order = pc.sort_indices(base, sort_keys=by).to_numpy()
        base = base.take(file_order)
        # each span under its file's place in that order (a file's spans stay in order)
        rank = np.empty(rows, np.int64)
        rank[file_order] = np.arange(rows)
        blocks = self._span_blocks
        span_file, span_start, span_length = (
            np.concatenate([np.array(listed, np.int64), *(b[k] for b in blocks)])
            for k, listed in enumerate((self.span_file, self.span_start, self.span_length))
        )
        span_rank = rank[span_file]
        by_rank = np.argsort(span_rank, kind="stable")
        span_rank = span_rank[by_rank]
        span_start = span_start[by_rank]
        span_length = span_length[by_rank]
        file_length = np.bincount(span_rank, weights=span_length, minlength=rows).astype(np.int64)
        self.span_file, self.span_start, self.span_length = [], [], []
        self._span_blocks = []
        # the chunks themselves are needed no more (the store keeps their id bytes)
        store = self.store.seal()
        size = row_group_size("release_files")
        for lo in range(0, max(rows, 1), size):
            a, b = np.searchsorted(span_rank, [lo, lo + size])
            lengths = file_length[lo : lo + size]
            yield _row_group(
                base.slice(lo, size), span_start[a:b], span_length[a:b], lengths, store
            )


def _row_group(
    base: pa.Table,
    span_start: np.ndarray,
    span_length: np.ndarray,
    lengths: np.ndarray,
    store: SealedStore,
) -> pa.Table:
    where, numbers, sizes, file_bytes = file_segments(
        store.numbers, store.sizes, span_start, span_length, lengths
    )
    ids = store.message_ids(where)
    offsets = pa.array(np.concatenate(([0], np.cumsum(lengths))).astype(np.int32))
    # straight into the catalog's schema (from_arrays checks each type): a table cast
    # to it took a cast call per column and row group
    segments = {
        "bytes": pa.array(file_bytes, pa.int64()),
        "seg_numbers": pa.ListArray.from_arrays(offsets, pa.array(numbers, pa.int32())),
        "seg_bytes": pa.ListArray.from_arrays(offsets, pa.array(sizes, pa.int32())),
        "seg_ids": pa.ListArray.from_arrays(offsets, ids),
    }
    columns = [
        pa.chunked_array([segments[name]]) if name in segments else base.column(name)
        for name in schema.RELEASE_FILES.names
    ]
    return pa.Table.from_arrays(columns, schema=schema.RELEASE_FILES)


class SegmentStore:
    """The range's segment store while rows are added: the columns of every chunk a
    written file drew on, each chunk's kept once, at a place given on first use."""

    def __init__(self) -> None:
        # by id(chunk): the chunks are kept alive here, or a freed chunk's id could be
        # reused by a new one and hand it the old chunk's place (and segments)
        self._stored: dict[int, int] = {}  # id(chunk) -> its first place
        self._size = 0
        self._chunks: list[ParsedChunk] = []
        self._numbers: list[np.ndarray] = []
        self._sizes: list[np.ndarray] = []
        self._ids: list[pa.Array] = []

    def place_of(self, chunk: ParsedChunk) -> int:
        """Where the chunk's first segment sits in the store."""
        first = self._stored.get(id(chunk))
        if first is None:
            first = self._size
            self._stored[id(chunk)] = first
            self._size += len(chunk.number)
            self._chunks.append(chunk)
            self._numbers.append(chunk.number)
            self._sizes.append(chunk.nbytes)
            self._ids.append(chunk.message_id)
        return first

    def seal(self) -> SealedStore:
        """The store's columns for reading, the chunks let go."""
        store = SealedStore(self._numbers, self._sizes, self._ids)
        self._chunks.clear()
        self._stored.clear()
        self._numbers.clear()
        self._sizes.clear()
        return store


class SealedStore:
    """The range's segment store: numbers and sizes end to end, message-ids per chunk."""

    def __init__(self, numbers: list[np.ndarray], sizes: list[np.ndarray], ids: list[pa.Array]):
        self.numbers = np.concatenate([np.zeros(0, np.int32), *numbers])
        self.sizes = np.concatenate([np.zeros(0, np.int64), *sizes])
        # each chunk's id bytes stay where they are: laying them end to end would copy
        # the range's largest column once more, at its memory peak
        datas, offsets = [], []
        for column in ids:
            _, offsets_buf, data_buf = column.buffers()
            first = column.offset
            offsets.append(np.frombuffer(offsets_buf, np.int32)[first : first + len(column) + 1])
            datas.append(np.frombuffer(data_buf, np.uint8) if data_buf is not None else _NO_BYTES)
        self.ids = binary_columns(datas, offsets)

    def message_ids(self, where: np.ndarray) -> pa.Array:
        """The message-ids at these places as strings, gathered from the chunks into one
        buffer by a kernel (Arrow's take on binary values costs several times more)."""
        places, data, ascii = gather_values(self.ids, where)
        buffers = [None, pa.py_buffer(places.astype(np.int32)), pa.py_buffer(data)]
        if ascii:  # valid UTF-8 as it is: the kernel saw every byte
            return pa.Array.from_buffers(pa.string(), len(where), buffers)
        return _as_text(pa.Array.from_buffers(pa.binary(), len(where), buffers))


def spans_of(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ascending rows as spans of consecutive ones: (starts, lengths)."""
    cuts = np.flatnonzero(np.diff(rows) != 1) + 1
    firsts = np.concatenate(([0], cuts))
    return rows[firsts], np.diff(np.concatenate((firsts, [len(rows)])))


def texts(values: list[bytes]) -> pa.Array:
    """Bytes as a text column, as `naming.to_text` makes each (UTF-8 checked by Arrow in
    one pass; only a column with invalid UTF-8 is made value by value)."""
    try:
        return pa.array(values, pa.binary()).cast(pa.string())
    except pa.ArrowInvalid:
        # only the values outside ASCII can be the invalid ones (a few in a thousand)
        fixed = [v if v.isascii() else naming.to_text(v).encode() for v in values]
        return pa.array(fixed, pa.binary()).cast(pa.string())


def _as_text(ids: pa.Array) -> pa.Array:
    """Message-ids as strings; a hostile id with bytes that are not UTF-8 is made readable."""
    try:
        return ids.cast(pa.string())
    except pa.ArrowInvalid:
        return pa.array([b.decode("utf-8", "replace") for b in ids.to_pylist()], pa.string())
