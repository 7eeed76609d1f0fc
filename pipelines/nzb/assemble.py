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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.nzb.writer import NzbFile

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


def merge_file_rows(rows: pa.Table) -> list[NzbFile]:
    """One NzbFile per file name from `release_files` rows of every version and range."""
    if rows.num_rows == 0:
        return []
    rows = rows.sort_by([("written_range", "ascending")])
    names = rows.column("name").to_pylist()
    file_of_name: dict[str, int] = {}
    row_file = np.array([file_of_name.setdefault(n, len(file_of_name)) for n in names])
    counts = pc.list_value_length(rows.column("seg_numbers")).to_numpy(zero_copy_only=False)
    seg_file = np.repeat(row_file, counts)
    numbers = pc.list_flatten(rows.column("seg_numbers")).to_numpy()
    sizes = pc.list_flatten(rows.column("seg_bytes")).to_numpy()
    ids = pc.list_flatten(rows.column("seg_ids"))
    # Sort by (file, number); keep the first of each duplicate number.
    order = np.lexsort((numbers, seg_file))
    seg_file, numbers, sizes = seg_file[order], numbers[order], sizes[order]
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = (seg_file[1:] != seg_file[:-1]) | (numbers[1:] != numbers[:-1])
    order, seg_file, numbers, sizes = order[keep], seg_file[keep], numbers[keep], sizes[keep]
    id_list = ids.take(pa.array(order))  # stays Arrow: the writer joins it in C++
    bounds = np.searchsorted(seg_file, np.arange(len(file_of_name) + 1))
    first_row = {f: names.index(n) for n, f in file_of_name.items()}
    subjects = rows.column("subject").to_pylist()
    posters = rows.column("poster").to_pylist()
    dates = rows.column("date").to_pylist()
    groups = rows.column("groups").to_pylist()
    index = rows.column("file_index").to_pylist()
    files = []
    for name, f in file_of_name.items():
        mine = np.nonzero(row_file == f)[0].tolist()
        row = first_row[f]
        lo, hi = int(bounds[f]), int(bounds[f + 1])
        group_set = list(dict.fromkeys(g for r in mine for g in (groups[r] or [])))
        files.append(
            (
                index[row] if index[row] is not None else 1 << 30,
                name,
                NzbFile(
                    subject=subjects[row] or name,
                    poster=posters[row] or "",
                    date=min(int(dates[r]) for r in mine),
                    groups=group_set,
                    numbers=numbers[lo:hi],
                    sizes=sizes[lo:hi],
                    message_ids=id_list[lo:hi],
                ),
            )
        )
    files.sort(key=lambda t: (t[0], t[1]))
    return [f for _, _, f in files]


class ReleaseFilesLookup:
    """Reads one release's `release_files` rows out of a catalog, fast enough per request.

    Parquet footers and per-row-group key bounds are cached per (path, size, mtime), so a
    request costs the row groups it reads; a file replaced by a redone range misses the
    cache because its size or mtime changed.
    """

    def __init__(self, fs: AbstractFileSystem, catalog: str, cache_files: int = 512) -> None:
        self.fs = fs
        self.catalog = catalog.rstrip("/")
        self._cache: OrderedDict[tuple[Any, ...], tuple[pq.FileMetaData, list]] = OrderedDict()
        self._cache_files = cache_files
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

    def _open(self, path: str, meta: pq.FileMetaData | None = None) -> pq.ParquetFile:
        # Local files are memory-mapped; fsspec's file objects cost more per request.
        if self._local:
            return pq.ParquetFile(path, metadata=meta, memory_map=True)
        return pq.ParquetFile(self.fs.open(path, "rb"), metadata=meta)

    def rows(self, group: str, key: bytes, first_article: int, last_article: int) -> pa.Table:
        parts = self._partitions(group)
        tables = []
        for part in parts:
            if part.last < first_article or part.first > last_article:
                continue
            found = self._rows_in(part.path, key)
            if found is not None and found.num_rows:
                tables.append(found)
        if not tables:
            return pa.Table.from_batches([], schema=_schema())
        return pa.concat_tables(tables)

    def _meta(self, path: str) -> tuple[pq.FileMetaData, list]:
        info = self.fs.info(path)
        ident = (path, info.get("size"), info.get("mtime"))
        with self._lock:
            hit = self._cache.get(ident)
            if hit is not None:
                self._cache.move_to_end(ident)
                return hit
        pf = self._open(path)
        meta = pf.metadata
        pf.close()
        col = meta.schema.to_arrow_schema().get_field_index("release_key")
        bounds = []
        for i in range(meta.num_row_groups):
            stats = meta.row_group(i).column(col).statistics
            ok = stats is not None and stats.has_min_max
            bounds.append((stats.min, stats.max) if ok else None)
        with self._lock:
            self._cache[ident] = (meta, bounds)
            while len(self._cache) > self._cache_files:
                self._cache.popitem(last=False)
        return meta, bounds

    def _rows_in(self, path: str, key: bytes) -> pa.Table | None:
        meta, bounds = self._meta(path)
        groups = [i for i, b in enumerate(bounds) if b is None or b[0] <= key <= b[1]]
        if not groups:
            return None
        scalar = pa.scalar(key, pa.binary(20))
        out = []
        pf = self._open(path, meta)
        try:
            for rg in groups:
                if len(groups) == 1 and bounds[rg] is not None:
                    # Statistics narrowed it to one group: read it whole, filter once.
                    table = pf.read_row_group(rg)
                    out.append(table.filter(pc.equal(table.column("release_key"), scalar)))
                    continue
                keys = pf.read_row_group(rg, columns=["release_key"]).column(0)
                mask = pc.equal(keys, scalar)
                if pc.any(mask).as_py():
                    out.append(pf.read_row_group(rg).filter(mask))
        finally:
            pf.close()
        return pa.concat_tables(out) if out else None


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
