"""The catalog's names a pre can be found by, read only where something is new.

Per group, a scan reads the partitions written since its last look (folder stamps and a
memo of the partitions read, `pipelines.catalog.changes`): release names (`releases`,
the header pass's, the article pass's and the merges'), pending releases' random stems
(`pending_releases`), file names (`release_files`: each name's stems) and the article
pass's inner names and NFO titles (`release_probes`). Each name gives its keys
(`keys.name_keys`); with its release, group, article span and size it is a *name row*.

The rows of a cycle are kept twice: in memory with their text, to match the pres at once
(a new release completes a waiting pre without waiting for its next step), and on disk
as one batch `_predb/names/<batch>.arrow` sorted by key, without the text: what a pre's
scheduled scan looks itself up in later. Batches are merged when there are more than
`MAX_BATCHES` (the newest ones first, so a merge costs what is new, not the catalog).

A release's size is its files' bytes without the par2 volumes (a PreDB counts the
release, not the recovery set); when its file rows are not in the same cycle, the row's
own bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from pipelines.catalog import written
from pipelines.catalog.changes import Stamps, table_folders
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.partitions import Partition, list_group
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.predb import name_texts as NT
from pipelines.predb.store import batch_name, batches, predb_path, write_ipc

STAGE = "predb"
TABLES = ("releases", "pending_releases", "release_files", "release_probes")
NAMES = "names"
MAX_BATCHES = 16
NAME_ROWS = pa.schema(
    [
        ("key", pa.uint64()),
        ("release_key", pa.binary(20)),
        ("group", pa.string()),
        ("bytes", pa.int64()),  # -1: unknown
        ("first_article", pa.int64()),
        ("last_article", pa.int64()),
        ("pending", pa.bool_()),
        ("where", pa.uint8()),  # release | file | inner
    ]
)


@dataclass
class NewNames:
    """What a cycle found new in a group: its names keyed (`name_texts.KEYED`), the facts
    of their releases (`name_texts.FACTS`), and the partitions read."""

    group: str = ""
    names: pa.Table = field(default_factory=NT.KEYED.empty_table)
    facts: pa.Table = field(default_factory=NT.FACTS.empty_table)
    partitions: int = 0
    groups: int = 0
    damaged: list[str] = field(default_factory=list)

    @property
    def releases(self) -> int:
        return self.facts.num_rows


def _groups(catalog: str) -> list[str]:
    _, root = open_fs(catalog)
    out: set[str] = set()
    for table in TABLES:
        try:
            out.update(e.name for e in os.scandir(f"{root}/{table}") if e.is_dir())
        except FileNotFoundError:
            continue
    return sorted(out)


def read_groups(catalog: str, stamps: Stamps) -> Iterator[NewNames]:
    """Group by group, the releases whose names moved since the stage's last look (a
    group at a time: a first look at a large catalog holds one group's names at once).
    Each group's stamp is recorded (in memory) once its names were taken."""
    fs, root = open_fs(catalog)
    for group in _groups(catalog):
        seen = stamps.check(group, table_folders(root, TABLES, group))
        if seen.same:
            continue
        before: dict[str, str] = stamps.last(group) or {}
        memo: dict[str, str] = {}
        todo: dict[str, list[Partition]] = {}
        for table in TABLES:
            for p in list_group(fs, root, table, group):
                memo[p.path] = p.mtime
                if before.get(p.path) != p.mtime and not p.predb:
                    todo.setdefault(table, []).append(p)
        out = NewNames(group)
        if todo:
            out.groups = 1
            _read_group(fs, root, group, todo, out)
        yield out
        stamps.record(seen, memo)


_COLUMNS = {
    "releases": ["release_key", "name", "bytes", "first_article", "last_article", "merged_into"],
    "pending_releases": ["release_key", "name", "bytes", "first_article", "last_article"],
    "release_files": ["release_key", "name", "bytes", "subject"],
    "release_probes": ["release_key", "pending", "inner_names", "nfo_title", "name"],
}


def keep_written() -> None:
    """A process that scans keeps in memory what its own stages write of these tables
    (`pipelines.catalog.written`): the scan after a header pass reads them from there,
    not from the files. The releases whole: a renamed release's version copies its row."""
    for table in TABLES:
        written.want(table, None if table in ("releases", "pending_releases") else _COLUMNS[table])


def _table(fs: Any, p: Partition, table: str, out: NewNames) -> pa.Table | None:
    """The partition's `_COLUMNS[table]` (None: compacted away since listed, its rows are
    in the compact file; or damaged, and counted)."""
    try:
        t = read_parquet(fs, p.path, _COLUMNS[table])
    except FileNotFoundError:
        return None
    except READ_ERRORS:
        out.damaged.append(p.path)
        return None
    out.partitions += 1
    return t


def _read_group(
    fs: Any, root: str, group: str, todo: dict[str, list[Partition]], out: NewNames
) -> None:
    found: list[pa.Table] = []  # name_texts.TEXTS
    facts: list[pa.Table] = []
    content: list[pa.Table] = []
    for p in todo.get("release_files", []):
        t = _table(fs, p, "release_files", out)
        if t is not None and t.num_rows:
            more, sums = NT.file_facts(t, group)
            found.append(more)
            content.append(sums)
    for table in ("releases", "pending_releases"):
        for p in todo.get(table, []):
            t = _table(fs, p, table, out)
            if t is None or not t.num_rows:
                continue
            if "merged_into" in t.column_names:
                t = t.filter(pc.is_null(t["merged_into"]))  # tombstones name nothing
            facts.append(_facts(t, table == "pending_releases"))
            found.append(NT.texts(t["release_key"], t["name"], "release"))
    have = NT.first_facts(facts, content)
    for p in todo.get("release_probes", []):
        t = _table(fs, p, "release_probes", out)
        if t is None or not t.num_rows:
            continue
        inner = _inner_texts(t)
        found.append(inner)
        # releases named by a probes file whose own rows came in an earlier cycle: their
        # size and span are looked up
        known = pc.is_in(inner["release_key"], have["release_key"])
        rest = pc.unique(inner["release_key"].filter(pc.invert(known)))
        if len(rest):
            rows = t.filter(pc.is_in(t["release_key"], rest))
            have = pa.concat_tables([have, _fill_sizes(fs, root, group, p, rows, out)])
    every = pa.concat_tables(found) if found else NT.TEXTS.empty_table()
    # a file or request of a release not read in this cycle names nothing here
    every = every.filter(pc.is_in(every["release_key"], have["release_key"]))
    out.facts = have
    out.names = NT.keyed(every)


def _facts(t: pa.Table, pending: bool) -> pa.Table:
    return pa.table(
        {
            "release_key": t["release_key"],
            "bytes": pc.fill_null(t["bytes"], 0),
            "first_article": pc.fill_null(t["first_article"], 0),
            "last_article": pc.fill_null(t["last_article"], 0),
            "pending": pa.array(np.full(t.num_rows, pending)),
        },
        NT.FACTS,
    )


def _inner_texts(t: pa.Table) -> pa.Table:
    """A probes partition's inner names, NFO titles and names found, as stems."""
    lists = t["inner_names"].combine_chunks()
    flat = pc.list_flatten(lists)
    parents = pc.list_parent_indices(lists)
    keys = t["release_key"].combine_chunks().take(parents)
    parts = [
        NT.texts(keys, NT.stems(flat), "inner"),
        NT.texts(t["release_key"], NT.stems(t["nfo_title"]), "inner"),
        NT.texts(t["release_key"], NT.stems(t["name"]), "inner"),
    ]
    return pa.concat_tables(parts)


def _fill_sizes(
    fs: Any, root: str, group: str, p: Partition, probes: pa.Table, out: NewNames
) -> pa.Table:
    """Facts of releases named by a probes file whose own rows came earlier: their size and
    span read from the partitions of the span it covers (its range, or a compact file
    over it); unknown (-1, the probes file's span) when none holds them."""
    keys = pc.unique(probes["release_key"])
    first_pending = dict(
        zip(probes["release_key"].to_pylist(), probes["pending"].to_pylist(), strict=True)
    )
    rels = {
        k: {"bytes": -1, "first_article": p.first, "last_article": p.last,
            "pending": bool(first_pending.get(k))}
        for k in keys.to_pylist()
    }  # fmt: skip
    content: dict[bytes, int] = {}
    for table in ("release_files", "releases", "pending_releases"):
        for q in list_group(fs, root, table, group, stat=False):
            if q.derived or q.last < p.first or p.last < q.first:
                continue
            try:
                t = read_parquet(fs, q.path, _COLUMNS[table][:5])
            except FileNotFoundError:
                continue
            except READ_ERRORS:
                out.damaged.append(q.path)
                continue
            t = t.filter(pc.is_in(t["release_key"], keys))
            for r in t.to_pylist():
                rel = rels[r["release_key"]]
                if table == "release_files":
                    if not (r["name"] or "").lower().endswith(".par2"):
                        content[r["release_key"]] = content.get(r["release_key"], 0) + int(
                            r["bytes"] or 0
                        )
                    continue
                rel["first_article"] = int(r["first_article"] or 0)
                rel["last_article"] = int(r["last_article"] or 0)
                rel["bytes"] = content.get(r["release_key"], int(r["bytes"] or 0))
    return pa.Table.from_pylist([{"release_key": k, **v} for k, v in rels.items()], NT.FACTS)


# --- the names index on disk ----------------------------------------------------------


def name_rows(new: NewNames) -> pa.Table:
    """The group's new names as name rows sorted by key (one row per key and release)."""
    if not new.names.num_rows:
        return NAME_ROWS.empty_table()
    names = new.names.sort_by([("key", "ascending")])
    at = pc.index_in(names["release_key"], new.facts["release_key"])  # each has its facts
    facts = new.facts.take(at)
    return pa.table(
        {
            "key": names["key"],
            "release_key": names["release_key"],
            "group": pa.array([new.group] * names.num_rows, pa.string()),
            "bytes": facts["bytes"],
            "first_article": facts["first_article"],
            "last_article": facts["last_article"],
            "pending": facts["pending"],
            "where": names["where"],
        },
        NAME_ROWS,
    )


def write_names(catalog: str, rows: pa.Table) -> str | None:
    if not rows.num_rows:
        return None
    name = batch_name(".arrow")
    write_ipc(predb_path(catalog, NAMES, name), rows, one_batch=True)
    return name


class NamesIndex:
    """Every names batch, memory-mapped: what the catalog held at the last scan, by key."""

    def __init__(self, catalog: str) -> None:
        self.catalog = catalog
        self.tables: list[pa.Table] = []
        self.keys: list[np.ndarray] = []
        for name in batches(catalog, NAMES, ".arrow"):
            try:
                t = ipc.open_file(pa.memory_map(predb_path(catalog, NAMES, name), "r")).read_all()
            except (OSError, pa.ArrowInvalid):
                continue
            self.tables.append(t)
            self.keys.append(_np(t.column("key")))

    def add(self, rows: pa.Table) -> None:
        if rows.num_rows:
            self.tables.append(rows)
            self.keys.append(_np(rows.column("key")))

    def find(self, keys: np.ndarray) -> list[tuple[int, dict[str, Any]]]:
        """(index into `keys`, name row) of every hit."""
        out: list[tuple[int, dict[str, Any]]] = []
        for t, arr in zip(self.tables, self.keys, strict=True):
            lo = np.searchsorted(arr, keys, side="left")
            hi = np.searchsorted(arr, keys, side="right")
            for i in np.flatnonzero(hi > lo).tolist():
                for j in range(int(lo[i]), int(hi[i])):
                    out.append((i, t.slice(j, 1).to_pylist()[0]))
        return out


def _np(col: pa.ChunkedArray) -> np.ndarray:
    arr = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return arr.to_numpy(zero_copy_only=False)


def merge_batches(catalog: str) -> int:
    """Merge the newest names batches into one when there are more than MAX_BATCHES: the
    newest half, whose rows are fewest. How many were merged."""
    names = batches(catalog, NAMES, ".arrow")
    if len(names) <= MAX_BATCHES:
        return 0
    take = names[len(names) // 2 :]
    tables = []
    for name in take:
        try:
            tables.append(
                ipc.open_file(pa.memory_map(predb_path(catalog, NAMES, name), "r")).read_all()
            )
        except (OSError, pa.ArrowInvalid):
            continue
    merged = pa.concat_tables(tables).sort_by([("key", "ascending")])
    # the merged batch sorts where the first of them did: the order of batches is kept
    path = predb_path(catalog, NAMES, take[0].replace(".arrow", "-m.arrow"))
    write_ipc(path, merged, one_batch=True)
    for name in take:
        os.remove(predb_path(catalog, NAMES, name))
    return len(take)
