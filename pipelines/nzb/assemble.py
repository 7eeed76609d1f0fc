"""Catalog rows -> NZB: find a release's `release_files` rows and merge them per file.

A release's files are spread over the ranges it was seen in: each range wrote the
segments it saw. The NZB is the union of all those rows, merged per file (same name),
segments deduplicated by number and sorted. The rows lie in the owner group's
partitions whose article span overlaps the release's, so a lookup opens only those,
and inside each only the row groups whose key statistics can hold the key.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.nzb.writer import NzbFile

# What `merge_file_rows` reads of `release_files` (and the key, to pick the rows).
MERGED_COLUMNS = ["release_key", "written_range", "name", "subject", "poster", "date", "groups",
                  "file_index", "seg_numbers", "seg_bytes", "seg_ids"]  # fmt: skip
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
    """One NzbFile per file name from `release_files` rows of every version and range.

    A file's header fields come from its earliest row (lowest `written_range`), its date
    is the earliest, its groups the union in that order; of a segment number seen twice
    the earliest row's copy is kept. Files come ordered by (file index, name), and their
    segments lie in that order in one Arrow array, so the writer joins them in one pass.
    Column-wise throughout: a 100-file release costs ~1 ms, not a Python loop per row.
    """
    n = rows.num_rows
    if n == 0:
        return []
    # Each row's place in written_range order (stable: ties keep their table order).
    by_range = np.argsort(_numbers(rows.column("written_range"), 0), kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_range] = np.arange(n)
    names = rows.column("name").to_pylist()
    file_of_name: dict[str, int] = {}
    for r in by_range.tolist():
        file_of_name.setdefault(names[r], len(file_of_name))
    n_files = len(file_of_name)
    row_file = np.array([file_of_name[name] for name in names], dtype=np.int64)
    first_rank = np.full(n_files, n, dtype=np.int64)
    np.minimum.at(first_rank, row_file, rank)
    first_row = by_range[first_rank]
    dates = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(dates, row_file, _numbers(rows.column("date"), 0))
    index = _numbers(rows.column("file_index"), 1 << 30)[first_row].tolist()
    file_names = list(file_of_name)
    in_order = sorted(range(n_files), key=lambda f: (index[f], file_names[f]))
    place = np.empty(n_files, dtype=np.int64)
    place[np.array(in_order, dtype=np.int64)] = np.arange(n_files)
    # Segments sorted by (file's place, number, row rank); the first of a number is kept.
    counts = pc.list_value_length(rows.column("seg_numbers")).to_numpy(zero_copy_only=False)
    seg_row = np.repeat(np.arange(n), counts)
    numbers = pc.list_flatten(rows.column("seg_numbers")).to_numpy()
    sizes = pc.list_flatten(rows.column("seg_bytes")).to_numpy()
    seg_place = place[row_file[seg_row]]
    order = np.lexsort((rank[seg_row], numbers, seg_place))
    seg_place, numbers, sizes = seg_place[order], numbers[order], sizes[order]
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = (seg_place[1:] != seg_place[:-1]) | (numbers[1:] != numbers[:-1])
    order, seg_place, numbers, sizes = order[keep], seg_place[keep], numbers[keep], sizes[keep]
    flat_ids = pc.list_flatten(rows.column("seg_ids"))
    if isinstance(flat_ids, pa.ChunkedArray):  # take on one array: ~2x cheaper than chunked
        flat_ids = flat_ids.combine_chunks()
    ids = flat_ids.take(pa.array(order))  # one array: the files' slices share its buffers
    bounds = np.searchsorted(seg_place, np.arange(n_files + 1)).tolist()
    # A hundred-odd rows: Python lists beat an Arrow take per column (~0.2 ms each).
    firsts = first_row.tolist()
    all_subjects = rows.column("subject").to_pylist()
    all_posters = rows.column("poster").to_pylist()
    subjects = [all_subjects[r] for r in firsts]
    posters = [all_posters[r] for r in firsts]
    groups = rows.column("groups").to_pylist()
    rows_of: list[list[int]] | None = None
    if n > n_files:  # some file has several rows: its groups are their union
        rows_of = [[] for _ in range(n_files)]
        file_list = row_file.tolist()
        for r in by_range.tolist():
            rows_of[file_list[r]].append(r)
    files = []
    for at, f in enumerate(in_order):
        mine = rows_of[f] if rows_of is not None else [int(first_row[f])]
        lo, hi = bounds[at], bounds[at + 1]
        files.append(
            NzbFile(
                subject=subjects[f] or file_names[f],
                poster=posters[f] or "",
                date=int(dates[f]),
                groups=list(dict.fromkeys(g for r in mine for g in (groups[r] or []))),
                numbers=numbers[lo:hi],
                sizes=sizes[lo:hi],
                message_ids=ids[lo:hi],
            )
        )
    return files


class ReleaseFilesLookup:
    """Reads one release's `release_files` rows out of a catalog, fast enough per request.

    Per-row-group key bounds are cached per (path, size, mtime), so a request costs the
    row groups it reads; a file replaced by a redone range misses the cache because its
    size or mtime changed. Open readers (local files) are kept for the `open_files` most
    recently read partitions only: a reader holds its parsed footer, ~2 MB of memory for
    a partition of 160 row groups, where the bounds are a few kB.
    """

    def __init__(
        self, fs: AbstractFileSystem, catalog: str, cache_files: int = 512, open_files: int = 24
    ) -> None:
        self.fs = fs
        self.catalog = catalog.rstrip("/")
        self._cache: OrderedDict[tuple[Any, ...], _Partition] = OrderedDict()
        self._cache_files = cache_files
        self._open_files = open_files
        self._readers: OrderedDict[tuple[Any, ...], _Partition] = OrderedDict()
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
        """Read the row groups' key bounds of these groups' partitions, newest first, up to
        the cache's size: a download's first touch of a partition then skips scanning
        the footer's statistics. Returns how many were read."""
        newest_first = [[p.path for p in reversed(self._partitions(g))] for g in groups]
        # Round-robin over the groups: each group's newest partitions come first.
        paths = [p for row in zip_longest(*newest_first) for p in row if p is not None]
        for path in paths[: self._cache_files]:
            self._partition(path)
            time.sleep(0.002)  # let requests have the GIL between files: this is no rush
        return min(len(paths), self._cache_files)

    def _open(self, path: str, meta: pq.FileMetaData | None = None) -> pq.ParquetFile:
        # Local files are memory-mapped; fsspec's file objects cost more per request.
        if self._local:
            return pq.ParquetFile(path, metadata=meta, memory_map=True)
        return pq.ParquetFile(self.fs.open(path, "rb"), metadata=meta)

    def rows(self, group: str, key: bytes, first_article: int, last_article: int) -> pa.Table:
        """The key's rows (the columns `merge_file_rows` reads) from every partition whose
        article span overlaps [first_article, last_article]."""
        parts = self._partitions(group)
        tables = []
        for part in parts:
            if part.last < first_article or part.first > last_article:
                continue
            found = self._rows_in(part.path, key)
            if found is not None and found.num_rows:
                tables.append(found)
        if not tables:
            return _schema().empty_table().select(MERGED_COLUMNS)
        return pa.concat_tables(tables)

    def _partition(self, path: str) -> _Partition:
        info = self.fs.info(path)
        ident = (path, info.get("size"), info.get("mtime"))
        with self._lock:
            hit = self._cache.get(ident)
            if hit is not None:
                self._cache.move_to_end(ident)
                return hit
        pf = self._open(path)
        meta = pf.metadata
        names = meta.schema.to_arrow_schema().names
        col = names.index("release_key")
        bounds = []
        for i in range(meta.num_row_groups):
            stats = meta.row_group(i).column(col).statistics
            ok = stats is not None and stats.has_min_max
            bounds.append((stats.min, stats.max) if ok else None)
        pf.close()
        columns = [c for c in MERGED_COLUMNS if c in names]
        found = _Partition(ident, bounds, columns)
        with self._lock:
            # A replaced file (a redone range) drops the old one's bounds and reader.
            for old in [k for k in self._cache if k[0] == path]:
                del self._cache[old]
                self._readers.pop(old, None)
            self._cache[ident] = found
            while len(self._cache) > self._cache_files:
                self._readers.pop(self._cache.popitem(last=False)[0], None)
        return found

    def _reader(self, part: _Partition, path: str) -> pq.ParquetFile:
        """The partition's open reader (kept for recent local partitions); call under
        `part.lock`. A dropped reader stays valid for a request still holding it."""
        if part.file is not None:
            with self._lock:
                if part.ident in self._readers:
                    self._readers.move_to_end(part.ident)
            return part.file
        pf = self._open(path)
        if self._local:
            part.file = pf
            with self._lock:
                self._readers[part.ident] = part
                while len(self._readers) > self._open_files:
                    self._readers.popitem(last=False)[1].file = None
        return pf

    def _rows_in(self, path: str, key: bytes) -> pa.Table | None:
        part = self._partition(path)
        bounds = part.bounds
        groups = [i for i, b in enumerate(bounds) if b is None or b[0] <= key <= b[1]]
        if not groups:
            return None
        scalar = pa.scalar(key, pa.binary(20))
        columns = part.columns
        out = []
        with part.lock:
            pf = self._reader(part, path)
            try:
                for rg in groups:
                    # One thread: Arrow's pool costs more than it saves on one row group.
                    if len(groups) == 1 and bounds[rg] is not None:
                        # Statistics narrowed it to one group: read it whole, filter once.
                        table = pf.read_row_group(rg, columns=columns, use_threads=False)
                        out.append(table.filter(pc.equal(table.column("release_key"), scalar)))
                        continue
                    keys = pf.read_row_group(rg, columns=["release_key"], use_threads=False)
                    mask = pc.equal(keys.column(0), scalar)
                    if pc.any(mask).as_py():
                        table = pf.read_row_group(rg, columns=columns, use_threads=False)
                        out.append(table.filter(mask))
            finally:
                if not self._local:
                    pf.close()
        return pa.concat_tables(out) if out else None


@dataclass
class _Partition:
    """A `release_files` partition's row groups' key bounds and, while it is among the
    recently read local files, its open memory-mapped reader."""

    ident: tuple[Any, ...]
    bounds: list[tuple[bytes, bytes] | None]
    columns: list[str]  # of MERGED_COLUMNS, those the file has
    file: pq.ParquetFile | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)  # a reader is not shared


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
