"""Compaction: merge a group's small per-range Parquet files into larger sorted ones.

DuckDB slows down with many small files, and a group indexed range by range leaves one
file per table and range. Compaction merges runs of neighbouring files of one table and
group into `compact-<first>-<last>.parquet` (rows sorted for the queries that read them),
then removes the files it replaced. Rows are moved, never changed: every view over the
catalog returns the same answers before and after.

Every row names the range that wrote it (`written_range` or `range_first`), so a range
that is redone can be taken back out of a compact file first (`uncompact_range`); its new
per-range file then replaces exactly what the old run wrote.

The `ranges` table is left alone: it is one row per range, and `replay` reads a range's
row by its per-range path to decide whether the range is done.

A damaged file (cut short, a footer or pages that do not parse) is never read into a
merge nor removed: it ends a run like a big file does, and the result names it. Merging
the files around it would leave a compact file whose span covers a file still there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from fsspec import AbstractFileSystem

from pipelines.catalog.health import DamagedPartition, footer_problem, reading
from pipelines.catalog.layout import compact_path
from pipelines.catalog.partitions import Partition, list_group
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import TABLES
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, open_fs

DEFAULT_TARGET_BYTES = 64 << 20  # large enough for DuckDB, small enough to rewrite quickly

# The column that names the range a row was written by (its first article).
RANGE_COLUMN = {
    "releases": "written_range",
    "release_files": "written_range",
    "pending_releases": "written_range",
    "probe_candidates": "written_range",
    "rule_counts": "range_first",
    "rule_samples": "range_first",
}

# Sort orders: releases by posting time (browse by group and time reads few row groups);
# file rows by key, so one release's files sit together for NZB assembly.
SORT_KEYS = {
    "releases": ["posted_first", "release_key", "written_range"],
    "release_files": ["release_key", "written_range", "name"],
    "pending_releases": ["posted_first", "release_key", "written_range"],
    "probe_candidates": ["release_key", "written_range", "kind", "file_name"],
    "rule_counts": ["range_first", "rule", "detail"],
    "rule_samples": ["range_first", "rule", "article"],
}

COMPACTED_TABLES = tuple(RANGE_COLUMN)


@dataclass
class TableCompaction:
    files_before: int = 0
    files_after: int = 0
    files_merged: int = 0
    rows_moved: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    damaged: dict[str, str] = field(default_factory=dict)  # path -> problem; left as it was


@dataclass
class CompactionResult:
    group: str
    tables: dict[str, TableCompaction] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def files_merged(self) -> int:
        return sum(t.files_merged for t in self.tables.values())

    @property
    def damaged(self) -> dict[str, str]:
        return {p: why for t in self.tables.values() for p, why in t.damaged.items()}

    def text(self) -> str:
        before = sum(t.files_before for t in self.tables.values())
        after = sum(t.files_after for t in self.tables.values())
        line = (
            f"{self.group}: {before} files -> {after} ({self.files_merged} merged, "
            f"{sum(t.rows_moved for t in self.tables.values()):,} rows moved) "
            f"in {self.seconds:.1f} s"
        )
        damaged = [f"\n  damaged, left as it was: {p}: {why}" for p, why in self.damaged.items()]
        return line + "".join(damaged)


def _bytes(f: Partition) -> int:
    return f.size or 0  # listed with stat: always known


def plan_buckets(files: list[Partition], target_bytes: int) -> list[list[Partition]]:
    """Runs of neighbouring small files to merge, each about target_bytes (at least 2 files).

    A file already at the target size ends a run: big files are never rewritten.
    """
    buckets: list[list[Partition]] = []
    run: list[Partition] = []
    size = 0
    for f in files:
        if _bytes(f) >= target_bytes:
            if len(run) > 1:
                buckets.append(run)
            run, size = [], 0
            continue
        run.append(f)
        size += _bytes(f)
        if size >= target_bytes:
            if len(run) > 1:
                buckets.append(run)
            run, size = [], 0
    if len(run) > 1:
        buckets.append(run)
    return buckets


def _read(fs: AbstractFileSystem, path: str) -> pa.Table:
    with reading(path):
        return read_parquet(fs, path)


def _readable_runs(
    fs: AbstractFileSystem, files: list[Partition], damaged: dict[str, str]
) -> list[list[Partition]]:
    """The files between damaged ones (noted in `damaged`), in article order."""
    runs: list[list[Partition]] = [[]]
    for f in files:
        problem = footer_problem(fs, f.path, f.size)
        if problem is None:
            runs[-1].append(f)
        else:
            damaged[f.path] = problem
            runs.append([])
    return [run for run in runs if run]


def _unchanged(fs: AbstractFileSystem, f: Partition) -> bool:
    try:
        return int(fs.info(f.path)["size"]) == f.size
    except FileNotFoundError:
        return False


def _merge(fs: AbstractFileSystem, root: str, table: str, group: str, run: list[Partition]) -> int:
    """Write the run's rows as one sorted compact file, then remove the run; returns rows."""
    schema = TABLES[table]
    merged = pa.concat_tables([_read(fs, f.path).cast(schema) for f in run])
    merged = merged.sort_by([(k, "ascending") for k in SORT_KEYS[table]])
    payload = parquet_bytes(merged, table)
    # A range redone while we read would have replaced its file: merging the old rows
    # would bring back what the redo removed, so give up this run instead.
    if not all(_unchanged(fs, f) for f in run):
        raise RuntimeError(
            f"{table}/{group}: a partition changed while compacting; run compaction again "
            "when the group's ranges are not being indexed"
        )
    out = compact_path(root, table, group, run[0].first, run[-1].last)
    atomic_put(fs, out, payload)
    for f in run:
        if f.path != out:
            fs.rm(f.path)
    return int(merged.num_rows)


def compact_group(
    catalog: str,
    group: str,
    target_bytes: int = DEFAULT_TARGET_BYTES,
    tables: tuple[str, ...] = COMPACTED_TABLES,
    storage_options: dict[str, Any] | None = None,
) -> CompactionResult:
    """Merge the group's small files of each table; running it again changes nothing."""
    if target_bytes <= 0:
        raise ValueError(f"target_bytes must be positive, not {target_bytes}")
    unknown = set(tables) - set(COMPACTED_TABLES)
    if unknown:
        raise ValueError(f"cannot compact {', '.join(sorted(unknown))}")
    started = time.perf_counter()
    fs, root = open_fs(catalog, storage_options)
    result = CompactionResult(group)
    for table in tables:
        # a growing range's tail files are replaced when the range is indexed whole, the
        # article pass's files when it probes the range again, the merges' when it merges
        files = [f for f in list_group(fs, root, table, group) if not f.derived]
        stats = TableCompaction(files_before=len(files), bytes_before=sum(map(_bytes, files)))
        for readable in _readable_runs(fs, files, stats.damaged):
            for run in plan_buckets(readable, target_bytes):
                try:
                    stats.rows_moved += _merge(fs, root, table, group, run)
                except DamagedPartition as exc:  # pages that do not read: the footer did
                    stats.damaged[exc.path] = exc.problem
                    continue
                stats.files_merged += len(run)
        after = [f for f in list_group(fs, root, table, group) if not f.derived]
        stats.files_after = len(after)
        stats.bytes_after = sum(map(_bytes, after))
        result.tables[table] = stats
    result.seconds = time.perf_counter() - started
    return result


def uncompact_range(
    catalog: str,
    group: str,
    first: int,
    last: int,
    storage_options: dict[str, Any] | None = None,
) -> int:
    """Take range first..last's rows out of the group's compact files; returns rows removed.

    Called before a range is redone, so the compact files keep no rows of the old run.
    """
    fs, root = open_fs(catalog, storage_options)
    removed = 0
    for table, column in RANGE_COLUMN.items():
        for f in list_group(fs, root, table, group):
            if not f.compact or not f.first <= first <= f.last:
                continue
            rows = _read(fs, f.path).cast(TABLES[table])
            keep = rows.filter(pc.not_equal(rows[column], pa.scalar(first, pa.int64())))
            if keep.num_rows == rows.num_rows:
                continue
            removed += rows.num_rows - keep.num_rows
            if keep.num_rows:
                atomic_put(fs, f.path, parquet_bytes(keep, table))
            else:
                fs.rm(f.path)
    return removed
