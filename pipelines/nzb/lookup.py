"""Locating a release's `release_files` rows in a catalog, fast enough per download.

The rows lie in the owner group's partitions whose article span overlaps the
release's, so a lookup opens only those, and inside each only the row groups whose key
statistics can hold the key: through the partition's kept footer (`footers.py`) cut
down to that row group, its column chunks read in one read (`byte_ranges.py`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import zip_longest
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.catalog.health import READ_ERRORS, DamagedPartition, PartitionHealth, reading
from pipelines.catalog.partitions import Partition, is_local, list_group
from pipelines.catalog.schema import RELEASE_FILES
from pipelines.nzb.assemble import MERGED_COLUMNS
from pipelines.nzb.byte_ranges import ByteRanges, chunk_span, pread
from pipelines.nzb.footers import PartitionFooter, read_footer, row_group_metadata, row_group_spans
from pipelines.nzb.writer import load_kernel

Mark = Callable[[str], None] | None
_TABLE = "release_files"


def _no_mark(stage: str) -> None:
    pass


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
        self._cache: OrderedDict[tuple[Any, ...], PartitionFooter] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._cached_bytes = 0
        self._lock = threading.Lock()
        self._listing: dict[str, tuple[float, list[Partition]]] = {}
        self._local = is_local(fs)

    def _partitions(self, group: str) -> list[Partition]:
        # Listed at most once a second per group: a landed range shows within a second.
        now = time.monotonic()
        with self._lock:
            hit = self._listing.get(group)
        if hit is not None and now - hit[0] < 1.0:
            return hit[1]
        parts = list_group(self.fs, self.catalog, _TABLE, group, stat=False)
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
            return RELEASE_FILES.empty_table().select(MERGED_COLUMNS)
        return pa.concat_tables(tables)

    def _partition(self, path: str, count: bool = True) -> tuple[PartitionFooter, bool]:
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
            found = read_footer(self.fs, path, ident)
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
        self,
        part: PartitionFooter,
        meta: pq.FileMetaData | None = None,
        columns: Sequence[str] = (),
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
            return lambda start, end: pread(path, start, end)
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
        self, part: PartitionFooter, path: str, key: bytes, mark: Callable[[str], None]
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
                    if not len(key_rows(keys.column(0), key)):
                        mark("decode")
                        continue
                # One thread: Arrow's pool costs more than it saves on one row group.
                table = pf.read_row_group(at, columns=part.columns, use_threads=False)
                mark("decode")
            finally:
                pf.close()
            hits = key_rows(table.column("release_key"), key)
            if len(hits) and hits[-1] - hits[0] + 1 == len(hits):
                out.append(table.slice(int(hits[0]), len(hits)))  # sorted by key: a slice
            elif len(hits):
                out.append(table.take(pa.array(hits)))
            mark("select")
        return pa.concat_tables(out) if out else None

    def _row_group_file(
        self, part: PartitionFooter, path: str, rg: int
    ) -> tuple[pq.ParquetFile, int]:
        """A reader of the file that knows only row group `rg` (then numbered 0), or of
        the whole footer when it could not be split."""
        if part.spans is None:
            return self._open(part), rg
        return self._open(part, row_group_metadata(part, rg), part.columns), 0


def key_rows(column: pa.ChunkedArray | pa.Array, key: bytes) -> np.ndarray:
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
