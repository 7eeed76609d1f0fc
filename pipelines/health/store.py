"""The health sweep's table, `release_health`: one row per check, written once.

`<catalog>/release_health/<group>/sweep-<started ns>-<batch>.parquet` (schema
`RELEASE_HEALTH`): a sweep writes a file per group for each batch of releases it checked,
and never rewrites one, so a sweep stopped anywhere loses at most the batch in hand and
the next one goes on from the releases still unchecked. The newest `checked_at` per key is
the release's current health (`latest_health`). A damaged file is skipped and reported:
its releases count as unchecked and are checked again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.kept import NewestRows
from pipelines.catalog.newest import newest_by
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASE_HEALTH
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, is_temporary, open_fs

TABLE = "release_health"
PREFIX = "sweep-"
_READ_ERRORS: tuple[type[Exception], ...] = (*READ_ERRORS, KeyError)  # KeyError: a column gone


def health_folder(catalog: str, group: str | None = None) -> str:
    root = f"{catalog.rstrip('/')}/{TABLE}"
    return root if group is None else f"{root}/{group}"


def batch_name(sweep: int, batch: int) -> str:
    """A sweep's batch file: its start (ns) and the batch's number, in sortable digits."""
    return f"{PREFIX}{sweep:020d}-{batch:06d}-{os.getpid()}.parquet"


def write_batch(
    catalog: str,
    rows: Iterable[dict[str, Any]],
    sweep: int,
    batch: int,
    storage_options: dict[str, Any] | None = None,
) -> int:
    """Write a batch's rows (RELEASE_HEALTH columns), a file per group; returns the rows."""
    by_group: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_group.setdefault(row["group"], []).append(row)
    fs, root = open_fs(catalog, storage_options)
    for group, group_rows in sorted(by_group.items()):
        table = pa.Table.from_pylist(group_rows, schema=RELEASE_HEALTH)
        path = f"{health_folder(root, group)}/{batch_name(sweep, batch)}"
        atomic_put(fs, path, parquet_bytes(table, TABLE))
    return sum(len(r) for r in by_group.values())


@dataclass
class HealthFiles:
    """The batch files of a catalog (or a group), oldest first, and the damaged ones."""

    rows: pa.Table
    files: int = 0
    damaged: list[str] = field(default_factory=list)


def _paths(fs: Any, folder: str, group: str | None) -> list[str]:
    try:
        groups = [group] if group is not None else sorted(
            str(p).rsplit("/", 1)[-1] for p in fs.ls(folder, detail=False)
        )  # fmt: skip
    except FileNotFoundError:
        return []
    out: list[str] = []
    for g in groups:
        try:
            names = [str(p) for p in fs.ls(f"{folder}/{g}", detail=False)]
        except FileNotFoundError:
            continue
        out += sorted(
            p for p in names
            if p.rsplit("/", 1)[-1].startswith(PREFIX) and p.endswith(".parquet")
            and not is_temporary(p.rsplit("/", 1)[-1])
        )  # fmt: skip
    return out


def read_health(
    catalog: str,
    group: str | None = None,
    storage_options: dict[str, Any] | None = None,
    keys: pa.Array | pa.ChunkedArray | None = None,
) -> HealthFiles:
    """Every stored check (of one group, or all); `keys`: only these releases' checks,
    with their key, time and the release's last post then (what a due time is counted
    from)."""
    fs, root = open_fs(catalog, storage_options)
    tables, damaged = [], []
    schema = RELEASE_HEALTH if keys is None else _CHECKS
    wanted = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    for path in _paths(fs, health_folder(root), group):
        try:
            t = read_parquet(fs, path, None if keys is None else schema.names)
            t = _with_columns(t, schema)
        except _READ_ERRORS as exc:
            damaged.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        if keys is not None:
            t = t.filter(pc.is_in(t["release_key"], wanted))
        tables.append(t)
    rows = pa.concat_tables(tables) if tables else schema.empty_table()
    return HealthFiles(rows, len(tables), damaged)


# the columns a file written before issue 29 lacks (read as null)
_ADDED = frozenset({"providers", "provider_missing"})


def _with_columns(t: pa.Table, schema: pa.Schema) -> pa.Table:
    """`t` as `schema`: a column added since the file was written is null."""
    for name in schema.names:
        if name not in t.column_names and name in _ADDED:
            t = t.append_column(name, pa.nulls(t.num_rows, schema.field(name).type))
    return t.select(schema.names).cast(schema)


_CHECKS = pa.schema([RELEASE_HEALTH.field(c) for c in ("release_key", "checked_at", "posted_last")])


def newest_per_key(rows: pa.Table) -> pa.Table:
    """Each key's newest check, a stamp included (of equal `checked_at`, the one stored
    last), by key: what the cadence counts from."""
    return newest_by(rows, "checked_at")


def current_health(rows: pa.Table) -> pa.Table:
    """Each key's newest check that gave a verdict: a stamp (the server's answer was
    unusable) says nothing of the articles, so the verdict before it stands."""
    if rows.num_rows == 0:
        return rows
    return newest_by(rows.filter(pc.is_valid(rows["verdict"])), "checked_at")


# the verdict as a dictionary: three words over millions of checks
_VERDICT_CHECKS = pa.schema(
    [RELEASE_HEALTH.field("release_key"), RELEASE_HEALTH.field("checked_at"),
     pa.field("verdict", pa.dictionary(pa.int8(), pa.string()))]
)  # fmt: skip


def health_fold(catalog: str, group: str, verdicts_only: bool = False) -> NewestRows:
    """A group's newest check per key as this process keeps it (`pipelines.catalog.kept`:
    a call reads only the batches written since the last): with `verdicts_only`, the
    current health (`current_health`: checks that gave a verdict, with key, time and
    verdict), else what the cadence counts from (`newest_per_key`: stamps too, with key,
    time and the release's last post then)."""
    fs, root = open_fs(catalog)
    if verdicts_only:
        return NewestRows(fs, health_folder(root, group), "health-verdicts", "checked_at",
                          _VERDICT_CHECKS, keep=lambda t: pc.is_valid(t["verdict"]))  # fmt: skip
    return NewestRows(fs, health_folder(root, group), "health-checks", "checked_at", _CHECKS)


def latest_health(
    catalog: str, group: str | None = None, storage_options: dict[str, Any] | None = None
) -> pa.Table:
    """The current health of every checked release (of one group, or all): one
    RELEASE_HEALTH row per key, the newest check. A null verdict is a stamp: the last
    check got an answer it could not use."""
    return newest_per_key(read_health(catalog, group, storage_options).rows)
