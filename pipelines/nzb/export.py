"""Write `<release_key hex>.nzb` for the newest version of every catalog release.

Group by group, the `release_files` partitions are read once each, oldest span first;
a release's rows gather as its ranges go by, and its NZB is written as soon as the
partition holding its newest version's range has been read. Memory holds one partition
and the releases still open across it, not the group.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa
from tqdm import tqdm

from pipelines.catalog.partitions import list_group, list_table
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.versions import MERGED, newest_sql
from pipelines.catalog.views import columns_of, connect, parquet_sql
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.nzb import categories
from pipelines.nzb.assemble import head_meta, merge_release_rows
from pipelines.nzb.writer import NzbFiles, write_nzb


@dataclass
class ExportSummary:
    written: int = 0
    bytes: int = 0
    segments: int = 0
    seconds: float = 0.0
    missing: list[str] = field(default_factory=list)
    # release_files partitions that could not be read ("path: why"), and the releases
    # whose files one of them may hold: not written, since their NZB could lack files
    unreadable: list[str] = field(default_factory=list)
    skipped: int = 0


class CatalogUnreadable(ValueError):
    """The catalog's releases could not be read at all."""


def _newest(fs, root: str, keys: Sequence[bytes] | None) -> pa.Table:
    paths = list_table(fs, root, "releases", stat=False)
    if not paths:
        return pa.table({"release_key": pa.array([], pa.binary(20))})
    con, prefix = connect(fs)
    source = parquet_sql([prefix + p.path for p in paths])
    # A finished tombstone (`merged_into` set) hides its release: no NZB for it.
    hide = MERGED in columns_of(con, source)
    params: list = []
    if keys:
        source = f"(SELECT * FROM {source} WHERE release_key IN (SELECT unnest(?)))"
        params = [list(keys)]
    newest = newest_sql(source, hide_merged=hide)
    # A password the article pass knows (the newest probe of the key) goes in the head.
    probes = list_table(fs, root, "release_probes", stat=False)
    password = "NULL::VARCHAR AS password_text"
    join = ""
    if probes:
        rows = parquet_sql([prefix + p.path for p in probes])
        join = (
            f"LEFT JOIN (SELECT release_key, password_text FROM {rows} QUALIFY row_number() "
            "OVER (PARTITION BY release_key ORDER BY probed_at DESC) = 1) p USING (release_key)"
        )
        password = "p.password_text"
    sql = (
        'SELECT release_key, name, "group", category, first_article, '
        f"greatest(last_article, written_range) AS upper, {password} "
        f'FROM ({newest}) {join} ORDER BY "group", upper'
    )
    return con.sql(sql, params=params or None).to_arrow_table()


def _releases(fs, root: str, keys: Sequence[bytes] | None) -> pa.Table:
    try:
        return _newest(fs, root, keys)
    except duckdb.Error as exc:  # a damaged partition: DuckDB's message names the file
        raise CatalogUnreadable(f"the catalog's releases cannot be read: {exc}") from exc


def export_nzbs(catalog: str, out: str, keys: Sequence[bytes] | None = None) -> ExportSummary:
    start = time.perf_counter()
    fs, root = open_fs(catalog)
    out_fs, out_root = open_fs(out)
    out_fs.makedirs(out_root, exist_ok=True)
    releases = _releases(fs, root, keys)
    summary = ExportSummary()
    found = {bytes(k) for k in releases.column("release_key").to_pylist()} if keys else set()
    summary.missing = [k.hex() for k in keys or [] if k not in found]
    rows = releases.to_pylist()
    by_group: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_group[row["group"]].append(row)
    with tqdm(total=len(rows), unit="nzb", desc="nzb", disable=None) as bar:
        for group, group_rows in by_group.items():
            _export_group(fs, root, group, group_rows, out_fs, out_root, summary, bar)
    summary.seconds = time.perf_counter() - start
    return summary


def _export_group(fs, root, group, rows, out_fs, out_root, summary, bar) -> None:
    wanted = {r["release_key"] for r in rows}
    gathered: dict[bytes, list[pa.Table]] = defaultdict(list)
    unreadable: list[tuple[int, int]] = []  # the spans of partitions that failed to read

    def finish(row: dict) -> None:
        tables = gathered.pop(row["release_key"], [])
        # a release's versions lie in the partitions of the ranges it spans
        if any(a <= row["upper"] and row["first_article"] <= z for a, z in unreadable):
            summary.skipped += 1
        else:
            _write_one(row, tables, out_fs, out_root, summary)
        bar.update(1)

    i = 0
    for part in list_group(fs, root, "release_files", group, stat=False):
        try:
            table = read_parquet(fs, part.path)
        except (OSError, pa.ArrowException) as exc:
            summary.unreadable.append(f"{part.path}: {exc}")
            unreadable.append((part.first, part.last))
            table = None
        if table is not None:
            _gather(table, wanted, gathered)
        while i < len(rows) and rows[i]["upper"] <= part.last:
            finish(rows[i])
            i += 1
    for row in rows[i:]:
        finish(row)


def _gather(table: pa.Table, wanted: set[bytes], gathered: dict[bytes, list[pa.Table]]) -> None:
    """The partition's rows of each wanted release, added to what its earlier ranges gave."""
    table = table.sort_by([("release_key", "ascending")])
    col = table.column("release_key").combine_chunks()
    raw = np.frombuffer(col.buffers()[1], dtype="S20", count=len(col), offset=col.offset * 20)
    bounds = np.nonzero(np.r_[True, raw[1:] != raw[:-1], True])[0]
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        key = bytes(raw[a]).ljust(20, b"\0")  # numpy drops trailing zero bytes
        if key in wanted:
            gathered[key].append(table.slice(a, b - a))


def _write_one(
    row: dict, tables: list[pa.Table], out_fs, out_root: str, summary: ExportSummary
) -> None:
    files = merge_release_rows(pa.concat_tables(tables)) if tables else NzbFiles.of([])
    meta = head_meta(row["name"], categories.name(int(row["category"])), row.get("password_text"))
    payload = write_nzb(files, meta)
    atomic_put(out_fs, f"{out_root}/{row['release_key'].hex()}.nzb", payload)
    summary.written += 1
    summary.bytes += len(payload)
    summary.segments += files.segments
