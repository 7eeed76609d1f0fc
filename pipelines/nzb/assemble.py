"""Catalog rows -> NZB: find a release's `release_files` rows and merge them per file.

A release's files are spread over the ranges it was seen in: each range wrote the
segments it saw. The NZB is the union of all those rows, merged per file (same name),
segments deduplicated by number and sorted. The rows lie in the owner group's
partitions whose article span overlaps the release's, so a lookup opens only those,
and inside each only the row groups whose key statistics can hold the key.
"""

from __future__ import annotations

import io
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.catalog.health import READ_ERRORS, DamagedPartition, PartitionHealth, reading
from pipelines.nzb.writer import NzbFile, NzbFiles, load_kernel, string_buffers

# What `merge_file_rows` reads of `release_files` (and the key, to pick the rows).
MERGED_COLUMNS = ["release_key", "written_range", "name", "subject", "poster", "date", "groups",
                  "file_index", "seg_numbers", "seg_bytes", "seg_ids"]  # fmt: skip
Mark = Callable[[str], None] | None


def _no_mark(stage: str) -> None:
    pass


_TABLE = "release_files"
_PART = re.compile(r"^(?:compact-)?(\d+)-(\d+)\.parquet$")


@dataclass(frozen=True, order=True)
class PartitionFile:
    """One Parquet partition of a table and the article span it covers."""

    first: int
    last: int
    path: str


def partition_files(fs: AbstractFileSystem, table_dir: str) -> list[PartitionFile]:
    """The partitions under `<table>/<group>`, oldest span first; temp files ignored."""
    try:
        names = fs.ls(table_dir, detail=False)
    except FileNotFoundError:
        return []
    found = []
    for path in names:
        m = _PART.match(str(path).rsplit("/", 1)[-1])
        if m:
            found.append(PartitionFile(int(m.group(1)), int(m.group(2)), str(path)))
    return sorted(found)


def _numbers(column: pa.ChunkedArray | pa.Array, fill: int) -> np.ndarray:
    if column.null_count:
        column = pc.fill_null(column, fill)
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.int64)


def merge_file_rows(rows: pa.Table) -> list[NzbFile]:
    """`merge_release_rows` as one NzbFile per file (pages that list files)."""
    return merge_release_rows(rows).files()


def merge_release_rows(rows: pa.Table) -> NzbFiles:
    """The release's files from `release_files` rows of every version and range, merged
    per file name, column-wise (no Python object per segment).

    A file's header fields come from its earliest row (lowest `written_range`), its date
    is the earliest, its groups the union in that order; of a segment number seen twice
    the earliest row's copy is kept. Files come ordered by (file index, name), segments
    by number; they stay positions into the rows' own segment columns.
    """
    n = rows.num_rows
    if n == 0:
        return NzbFiles.of([])
    rows = rows.combine_chunks()
    # Each row's place in written_range order (stable: ties keep their table order).
    by_range = np.argsort(_numbers(rows.column("written_range"), 0), kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_range] = np.arange(n)
    # A hundred-odd rows: Python lists and a dict beat Arrow's kernels' fixed costs here.
    names = [name or "" for name in rows.column("name").to_pylist()]
    file_of: dict[str, int] = {}
    row_file = np.array([file_of.setdefault(name, len(file_of)) for name in names], np.int64)
    file_names = list(file_of)
    n_files = len(file_names)
    first_rank = np.full(n_files, n, dtype=np.int64)
    np.minimum.at(first_rank, row_file, rank)
    first_row = by_range[first_rank]
    dates = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(dates, row_file, _numbers(rows.column("date"), 0))
    index = _numbers(rows.column("file_index"), 1 << 30)[first_row].tolist()
    in_order = np.array(sorted(range(n_files), key=lambda f: (index[f], file_names[f])), np.int64)
    place = np.empty(n_files, dtype=np.int64)
    place[in_order] = np.arange(n_files)
    numbers, sizes, id_offsets, id_data, seg_row = _segment_columns(rows)
    # Segments sorted by (file's place, number, row rank); the first of a number is kept.
    seg_place = place[row_file[seg_row]]
    order = np.lexsort((rank[seg_row], numbers, seg_place))
    sorted_place, sorted_numbers = seg_place[order], numbers[order]
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = (sorted_place[1:] != sorted_place[:-1]) | (sorted_numbers[1:] != sorted_numbers[:-1])
    source = order[keep]
    bounds = np.searchsorted(sorted_place[keep], np.arange(n_files + 1)).astype(np.int64)
    firsts = first_row[in_order].tolist()
    subjects = rows.column("subject").to_pylist()
    posters = rows.column("poster").to_pylist()
    return NzbFiles(
        subjects=[subjects[r] or names[r] for r in firsts],
        posters=[posters[r] or "" for r in firsts],
        dates=dates[in_order].tolist(),
        groups=_file_groups(rows, by_range, row_file, first_row, in_order, n > n_files),
        bounds=bounds,
        source=source,
        numbers=numbers,
        sizes=sizes,
        id_offsets=id_offsets,
        id_data=id_data,
    )


def _flat(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """A list column's lengths and its values in row order (the child's slice the rows
    cover: no Arrow kernel, whose fixed cost is most of the work at this size)."""
    lists = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if lists.null_count:  # a null list may cover child values: let Arrow drop them
        counts = pc.list_value_length(lists).fill_null(0)
        return np.asarray(counts, dtype=np.int64), pc.list_flatten(lists)
    raw = np.frombuffer(lists.buffers()[1], np.int32)
    offsets = raw[lists.offset : lists.offset + len(lists) + 1]
    first, last = int(offsets[0]), int(offsets[-1])
    return np.diff(offsets).astype(np.int64), lists.values.slice(first, last - first)


def _segment_columns(
    rows: pa.Table,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows' segments flattened: numbers, bytes, message-id offsets and data (views of
    the Arrow buffers where possible), and each segment's row."""
    counts, numbers = _flat(rows.column("seg_numbers"))
    size_counts, sizes = _flat(rows.column("seg_bytes"))
    id_counts, ids = _flat(rows.column("seg_ids"))
    if not (np.array_equal(counts, size_counts) and np.array_equal(counts, id_counts)):
        raise ValueError("a release_files row has unequal segment numbers, bytes and message-ids")
    id_offsets, id_data = string_buffers(ids)
    seg_row = np.repeat(np.arange(rows.num_rows), counts)
    return _numbers(numbers, 0), _numbers(sizes, 0), id_offsets, id_data, seg_row


def _file_groups(
    rows: pa.Table,
    by_range: np.ndarray,
    row_file: np.ndarray,
    first_row: np.ndarray,
    in_order: np.ndarray,
    several: bool,
) -> list[tuple[str, ...]]:
    """Each file's groups: the union over its rows in written_range order."""
    groups = rows.column("groups").to_pylist()
    if not several:  # one row a file
        return [tuple(dict.fromkeys(groups[r] or ())) for r in first_row[in_order].tolist()]
    rows_of: list[list[int]] = [[] for _ in range(len(first_row))]
    file_list = row_file.tolist()
    for r in by_range.tolist():
        rows_of[file_list[r]].append(r)
    return [
        tuple(dict.fromkeys(g for r in rows_of[f] for g in (groups[r] or ())))
        for f in in_order.tolist()
    ]


class ReleaseFilesLookup:
    """Reads one release's `release_files` rows out of a catalog, fast enough per request.

    Per partition (keyed by path, size and mtime, so a file replaced by a redone range
    misses) it keeps the row groups' key bounds and the raw footer with where each row
    group's metadata lies in it (`kernels.parquet_footer`): a request parses a footer of
    just the row group it reads (~0.9 ms with the reader's set-up, where the whole footer
    of 158 row groups took ~3.4 ms and a kept parsed one ~1.9 MB). Raw footers are ~260 kB
    a partition, kept up to `cache_bytes` (least recently read dropped first).

    A partition that cannot be read raises `DamagedPartition` naming it, and is marked in
    `health`: a release whose span it covers gets no NZB rather than one lacking files.
    """

    def __init__(
        self,
        fs: AbstractFileSystem,
        catalog: str,
        cache_bytes: int = 96 << 20,
        health: PartitionHealth | None = None,
    ) -> None:
        self.fs = fs
        self.health = health or PartitionHealth()
        self.catalog = catalog.rstrip("/")
        self._cache: OrderedDict[tuple[Any, ...], _Partition] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._cached_bytes = 0
        self._lock = threading.Lock()
        self._listing: dict[str, tuple[float, list[PartitionFile]]] = {}
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        self._local = protocol in ("file", "local")

    def _partitions(self, group: str) -> list[PartitionFile]:
        # Listed at most once a second per group: a landed range shows within a second.
        now = time.monotonic()
        with self._lock:
            hit = self._listing.get(group)
        if hit is not None and now - hit[0] < 1.0:
            return hit[1]
        parts = partition_files(self.fs, f"{self.catalog}/release_files/{group}")
        with self._lock:
            self._listing[group] = (now, parts)
        return parts

    def warm(self, groups: list[str]) -> int:
        """Read the footers of these groups' partitions not read yet, newest first, while
        they fit the cache: a download then finds its partition ready. Run when the server
        starts and after each refresh (a landed range). Returns how many were read."""
        newest_first = [[p.path for p in reversed(self._partitions(g))] for g in groups]
        # Round-robin over the groups: each group's newest partitions come first.
        paths = [p for row in zip_longest(*newest_first) for p in row if p is not None]
        with self._lock:
            known = {ident[0] for ident in self._cache}
        read = 0
        for path in paths:
            if self._cached_bytes >= self._cache_bytes:
                break
            # Known paths are not stat'ed again here (this runs every refresh): a replaced
            # file is re-read by its first download, which checks size and mtime.
            try:
                if path in known or not self._partition(path, count=False)[1]:
                    continue
            except (DamagedPartition, FileNotFoundError):
                continue  # marked damaged (the status page shows it), or removed meanwhile
            read += 1
            time.sleep(0.002)  # let requests have the GIL between files: no rush
        return read

    def damaged_in(self, group: str, first_article: int, last_article: int) -> str | None:
        """A partition known damaged whose span overlaps [first_article, last_article]."""
        for part in self._partitions(group):
            overlaps = part.last >= first_article and part.first <= last_article
            if overlaps and self.health.is_damaged(part.path):
                return part.path
        return None

    def rows(
        self, group: str, key: bytes, first_article: int, last_article: int, mark: Mark = None
    ) -> pa.Table:
        """The key's rows (the columns `merge_release_rows` reads) from every partition
        whose article span overlaps [first_article, last_article]. `mark(stage)` is told
        where the time went (serving's Server-Timing)."""
        mark = mark or _no_mark
        parts = self._partitions(group)
        tables = []
        for part in parts:
            if part.last < first_article or part.first > last_article:
                continue
            found = self._rows_in(part.path, key, mark)
            if found is not None and found.num_rows:
                tables.append(found)
        if not tables:
            return _schema().empty_table().select(MERGED_COLUMNS)
        return pa.concat_tables(tables)

    def _partition(self, path: str, count: bool = True) -> tuple[_Partition, bool]:
        """The partition's cached footer and bounds, and whether they were read now."""
        info = self.fs.info(path)
        ident = (path, info.get("size"), info.get("mtime"))
        with self._lock:
            hit = self._cache.get(ident)
            if hit is not None:
                if count:
                    self._cache.move_to_end(ident)
                return hit, False
        problem = self.health.problem(self.fs, _TABLE, path, ident[1], ident[2])
        if problem is not None:
            raise DamagedPartition(path, problem)
        # ValueError too: not a plain Parquet file, or no release_key column
        with self._damage(ident, (*READ_ERRORS, ValueError)):
            found = _read_partition(self.fs, path, ident)
        with self._lock:
            # A replaced file (a redone range) drops the old one's footer.
            for old in [k for k in self._cache if k[0] == path]:
                self._cached_bytes -= self._cache.pop(old).size
            self._cache[ident] = found
            self._cached_bytes += found.size
            while self._cached_bytes > self._cache_bytes and len(self._cache) > 1:
                self._cached_bytes -= self._cache.popitem(last=False)[1].size
        return found, True

    def _open(
        self, part: _Partition, meta: pq.FileMetaData | None = None, columns: Sequence[str] = ()
    ) -> pq.ParquetFile:
        """A reader of the partition whose reads are byte ranges: with `meta` (one row
        group's footer), the column chunks of `columns` are read first, in one read."""
        path, size = part.ident[0], part.ident[1]
        if size is None:
            size = self.fs.info(path)["size"]
        source = ByteRanges(self._reader(path), int(size))
        if meta is not None and meta.num_row_groups:
            source.read_ahead(*chunk_span(meta.row_group(0), columns))
        return pq.ParquetFile(source, metadata=meta)

    def _reader(self, path: str) -> Callable[[int, int], bytes]:
        # One pread a range: a memory-mapped cold page read the device's whole read-ahead
        # window around it (8 MB, ~25 ms here) for each of a row group's few hundred kB.
        if self._local:
            return lambda start, end: _pread(path, start, end)
        return lambda start, end: self.fs.cat_file(path, start=start, end=end)

    @contextmanager
    def _damage(
        self, ident: tuple[Any, ...], errors: tuple[type[Exception], ...] = READ_ERRORS
    ) -> Iterator[None]:
        """`health.reading`, and the damage marked in `health` too."""
        try:
            with reading(ident[0], errors):
                yield
        except DamagedPartition as exc:
            path, size, mtime = ident
            self.health.mark(_TABLE, path, size, mtime, exc.problem)
            raise

    def _rows_in(self, path: str, key: bytes, mark: Callable[[str], None]) -> pa.Table | None:
        part = self._partition(path)[0]
        with self._damage(part.ident):
            return self._rows_of(part, path, key, mark)

    def _rows_of(
        self, part: _Partition, path: str, key: bytes, mark: Callable[[str], None]
    ) -> pa.Table | None:
        bounds = part.bounds
        groups = [i for i, b in enumerate(bounds) if b is None or b[0] <= key <= b[1]]
        mark("bounds")
        out = []
        for rg in groups:
            pf, at = self._row_group_file(part, path, rg)
            mark("open")
            try:
                if len(groups) > 1 or bounds[rg] is None:
                    # Several candidates: the key column alone says which hold the key.
                    keys = pf.read_row_group(at, columns=["release_key"], use_threads=False)
                    if not len(_key_rows(keys.column(0), key)):
                        mark("decode")
                        continue
                # One thread: Arrow's pool costs more than it saves on one row group.
                table = pf.read_row_group(at, columns=part.columns, use_threads=False)
                mark("decode")
            finally:
                pf.close()
            hits = _key_rows(table.column("release_key"), key)
            if len(hits) and hits[-1] - hits[0] + 1 == len(hits):
                out.append(table.slice(int(hits[0]), len(hits)))  # sorted by key: a slice
            elif len(hits):
                out.append(table.take(pa.array(hits)))
            mark("select")
        return pa.concat_tables(out) if out else None

    def _row_group_file(self, part: _Partition, path: str, rg: int) -> tuple[pq.ParquetFile, int]:
        """A reader of the file that knows only row group `rg` (then numbered 0), or of
        the whole footer when it could not be split."""
        if part.spans is None:
            return self._open(part), rg
        # The bytes before the list, a one-element list header, the row group, the rest.
        start, end = (int(v) for v in part.spans[rg])
        footer = b"".join((part.footer[: part.head], b"\x1c", part.footer[start:end],
                           part.footer[part.end :]))  # fmt: skip
        sized = footer + len(footer).to_bytes(4, "little") + MAGIC
        meta = pq.read_metadata(pa.BufferReader(sized))
        return self._open(part, meta, part.columns), 0


MAGIC = b"PAR1"


def _pread(path: str, start: int, end: int) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.pread(fd, end - start, start)
    finally:
        os.close(fd)
    if len(data) != end - start:
        raise OSError(f"{path}: {end - start} bytes at {start} asked, {len(data)} read")
    return data


def chunk_span(row_group: pq.RowGroupMetaData, columns: Sequence[str]) -> tuple[int, int]:
    """The byte range [start, end) of the file that holds these columns' chunks in this
    row group (their leaves: a list column's values are `name.list.element`)."""
    wanted = set(columns)
    start, end = None, 0
    for i in range(row_group.num_columns):
        chunk = row_group.column(i)
        if chunk.path_in_schema.split(".", 1)[0] not in wanted:
            continue
        first = chunk.data_page_offset
        if chunk.dictionary_page_offset is not None:
            first = min(first, chunk.dictionary_page_offset)
        start = first if start is None else min(start, first)
        end = max(end, first + chunk.total_compressed_size)
    return (0, 0) if start is None else (start, end)


class ByteRanges(io.RawIOBase):
    """A read-only file of `size` bytes whose reads are ranges read by `read(start, end)`
    (a pread, an object store's ranged GET). What `read_ahead` read is served from
    memory: a row group's column chunks come in one read, not one per page or chunk."""

    def __init__(self, read: Callable[[int, int], bytes], size: int) -> None:
        super().__init__()
        self._read = read
        self._size = size
        self._pos = 0
        self._start = 0
        self._data = memoryview(b"")

    def read_ahead(self, start: int, end: int) -> None:
        start, end = max(0, start), min(end, self._size)
        if end > start:
            self._start, self._data = start, memoryview(self._read(start, end))

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise ValueError("negative seek position")
        self._pos = base + offset
        return self._pos

    def read(self, size: int | None = -1) -> bytes | memoryview:
        start = self._pos
        if start >= self._size:
            return b""  # at or past the end: nothing, and the position stays
        end = self._size if size is None or size < 0 else min(start + size, self._size)
        self._pos = end
        held = start - self._start
        if held >= 0 and end - self._start <= len(self._data):
            return self._data[held : end - self._start]
        return self._read(start, end) if end > start else b""


def _key_rows(column: pa.ChunkedArray | pa.Array, key: bytes) -> np.ndarray:
    """Positions of `key` in a fixed_size_binary(20) column (bytes compared whole)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count or column.type != pa.binary(20):
        return np.flatnonzero(
            pc.fill_null(pc.equal(column, pa.scalar(key, column.type)), False).to_numpy(
                zero_copy_only=False
            )
        )
    raw = np.frombuffer(column.buffers()[1], np.uint8)[column.offset * 20 :][: len(column) * 20]
    wanted = np.frombuffer(key, np.uint8)
    return np.flatnonzero((raw.reshape(-1, 20) == wanted).all(axis=1))


def _read_partition(fs: AbstractFileSystem, path: str, ident: tuple[Any, ...]) -> _Partition:
    """A partition's raw footer, where each row group lies in it, and the row groups'
    `release_key` bounds (one full parse, once)."""
    with fs.open(path, "rb") as fh:
        fh.seek(-8, 2)
        tail = fh.read(8)
        size = int.from_bytes(tail[:4], "little")
        fh.seek(-8 - size, 2)
        footer = fh.read(size)
    if tail[4:] != MAGIC or len(footer) != size:  # e.g. PARE: an encrypted footer
        raise ValueError(f"{path}: not a plain Parquet file")
    meta = pq.read_metadata(pa.BufferReader(footer + tail))
    names = meta.schema.to_arrow_schema().names
    col = names.index("release_key")
    bounds = []
    for i in range(meta.num_row_groups):
        stats = meta.row_group(i).column(col).statistics
        ok = stats is not None and stats.has_min_max
        bounds.append((stats.min, stats.max) if ok else None)
    columns = [c for c in MERGED_COLUMNS if c in names]
    try:
        head, end, spans = row_group_spans(np.frombuffer(footer, np.uint8))
        if len(spans) != meta.num_row_groups:
            raise ValueError("row group count differs")
    except ValueError:  # read with the whole footer instead
        return _Partition(ident, bounds, columns, b"", 0, 0, None)
    return _Partition(ident, bounds, columns, footer, head, end, spans)


@dataclass
class _Partition:
    """A `release_files` partition's row groups' key bounds, and its raw footer with each
    row group's place in it (`spans` None: the footer did not split; read it whole)."""

    ident: tuple[Any, ...]
    bounds: list[tuple[bytes, bytes] | None]
    columns: list[str]  # of MERGED_COLUMNS, those the file has
    footer: bytes
    head: int  # where the row group list's header is in the footer
    end: int  # where the list ends
    spans: np.ndarray | None  # (row groups, 2): each RowGroup's [start, end) in footer

    @property
    def size(self) -> int:
        return len(self.footer) + 64 * len(self.bounds) + 1024


def row_group_spans(footer: np.ndarray) -> tuple[int, int, np.ndarray]:
    """`kernels.parquet_footer.row_group_spans`, imported on first use (numba costs a
    process ~20 MB; `serve`'s index-building parent reads no footer)."""
    from kernels.parquet_footer import row_group_spans as spans

    return spans(footer)


def load_kernels() -> None:
    """Compile (or load from numba's cache) the NZB path's kernels, so a server's first
    download does not wait seconds for them: `serve` calls this before it starts its
    workers (which then load them from the cache), and each server process at start."""
    load_kernel()
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"release_key": pa.array([b"k" * 20], pa.binary(20))}), sink)
    raw = sink.getvalue().to_pybytes()
    size = int.from_bytes(raw[-8:-4], "little")
    row_group_spans(np.frombuffer(raw[-8 - size : -8], np.uint8))


def _schema() -> pa.Schema:
    from pipelines.catalog.schema import RELEASE_FILES

    return RELEASE_FILES


def head_meta(name: str, category: str | None, password: bool | None) -> Sequence[tuple[str, str]]:
    """The NZB head: title always; category and password only when known."""
    meta = [("title", name)]
    if category:
        meta.append(("category", category))
    if password is not None:
        meta.append(("password", "yes" if password else "no"))
    return meta
