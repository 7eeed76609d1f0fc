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
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
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
from pipelines.predb import keys as K
from pipelines.predb.store import batch_name, batches, predb_path, write_ipc

STAGE = "predb"
TABLES = ("releases", "pending_releases", "release_files", "release_probes")
NAMES = "names"
MAX_BATCHES = 16
WHERE = {"release": 0, "file": 1, "inner": 2, "request": 3}
# a request post's subject opens with its id: `[123456]-[FULL]-[#a.b.teevee@EFNet]-[ Title ]`
REQUEST_ID = re.compile(r"^\s*\[(?P<id>\d{1,9})\]\s*-?\s*\[")
WHERE_NAMES = {v: k for k, v in WHERE.items()}
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
class Release:
    key: bytes
    group: str
    bytes: int
    first_article: int
    last_article: int
    pending: bool
    names: list[tuple[str, str]] = field(default_factory=list)  # (text, where)
    _keyed: list[tuple[int, str, str]] | None = field(default=None, repr=False)

    def keyed(self) -> list[tuple[int, str, str]]:
        """(key, where, text) of each distinct key its names give, the best place first
        (made once: the matcher and the names index both ask). A set's files share their
        stem (`x.part01.rar` .. `x.part40.rar`): each stem is hashed once."""
        if self._keyed is None:
            texts: dict[tuple[str, str], None] = {}
            for text, where in self.names:
                one = K.file_stem(text.strip()) if where == "inner" else text
                texts.setdefault((one, where), None)
            out: dict[int, tuple[int, str, str]] = {}
            for text, where in texts:
                for k in name_keys_of(text, where):
                    out.setdefault(k, (k, where, text))
            self._keyed = list(out.values())
        return self._keyed


@dataclass
class NewNames:
    """What a cycle found new: its releases with their names, and the partitions read."""

    releases: dict[bytes, Release] = field(default_factory=dict)
    partitions: int = 0
    groups: int = 0
    damaged: list[str] = field(default_factory=list)


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
        out = NewNames()
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


def _read(fs: Any, p: Partition, table: str, out: NewNames) -> list[tuple[Any, ...]]:
    """The partition's rows as tuples of `_COLUMNS[table]` (a column at a time: a dict a
    row cost twice as much)."""
    try:
        t = read_parquet(fs, p.path, _COLUMNS[table])
    except FileNotFoundError:
        return []  # compacted away since listed: its rows are in the compact file
    except READ_ERRORS:
        out.damaged.append(p.path)
        return []
    out.partitions += 1
    return list(zip(*(t.column(c).to_pylist() for c in _COLUMNS[table]), strict=True))


def _table(fs: Any, p: Partition, table: str, out: NewNames) -> pa.Table | None:
    try:
        t = read_parquet(fs, p.path, _COLUMNS[table])
    except FileNotFoundError:
        return None
    except READ_ERRORS:
        out.damaged.append(p.path)
        return None
    out.partitions += 1
    return t


def _file_facts(
    t: pa.Table | None, group: str, files: dict[bytes, list[str]], content: dict[bytes, int],
    asked: dict[bytes, set[str]],
) -> None:  # fmt: skip
    """A release_files partition's distinct file stems, sizes without par2 volumes and
    request ids per release, column-wise (a set of 40 volumes is one stem)."""
    if t is None or not t.num_rows:
        return
    names = pc.fill_null(t["name"], "")
    par2 = pc.ends_with(names, ".par2", ignore_case=True)
    content_bytes = pc.if_else(par2, 0, pc.fill_null(t["bytes"], 0))
    # one pass of Acero on this thread: a pool's hand-offs cost more CPU than these
    # few thousand rows do
    pairs = pa.table({"k": t["release_key"], "s": K.file_stems(names), "b": content_bytes})
    pairs = pairs.group_by(["k", "s"], use_threads=False).aggregate([("b", "sum")])
    for k, stem, b in zip(
        pairs["k"].to_pylist(), pairs["s"].to_pylist(), pairs["b_sum"].to_pylist(), strict=True
    ):
        files.setdefault(k, []).append(stem)
        content[k] = content.get(k, 0) + int(b or 0)
    ids = pc.extract_regex(pc.fill_null(t["subject"], ""), REQUEST_ID.pattern)
    valid = pc.is_valid(ids)
    if pc.any(valid).as_py():
        found = pa.table(
            {"k": t["release_key"].filter(valid), "i": pc.struct_field(ids.filter(valid), "id")}
        )
        for k, rid in zip(found["k"].to_pylist(), found["i"].to_pylist(), strict=True):
            asked.setdefault(k, set()).add(f"{group}:{int(rid)}")


def _read_group(
    fs: Any, root: str, group: str, todo: dict[str, list[Partition]], out: NewNames
) -> None:
    content: dict[bytes, int] = {}
    files: dict[bytes, list[str]] = {}
    unsized: dict[tuple[int, int], list[Release]] = {}
    asked: dict[bytes, set[str]] = {}
    for p in todo.get("release_files", []):
        _file_facts(_table(fs, p, "release_files", out), group, files, content, asked)
    for table in ("releases", "pending_releases"):
        for p in todo.get(table, []):
            for k, name, nbytes, first, last, *merged in _read(fs, p, table, out):
                if merged and merged[0] is not None:
                    continue  # a tombstone
                rel = out.releases.get(k)
                if rel is None:
                    rel = out.releases[k] = Release(
                        k, group, content.get(k, int(nbytes or 0)), int(first or 0),
                        int(last or 0), table == "pending_releases",
                    )  # fmt: skip
                if name:
                    rel.names.append((name, "release"))
    for k, names in files.items():
        rel = out.releases.get(k)
        if rel is not None:
            rel.names += [(n, "file") for n in names if n]
            rel.names += [(a, "request") for a in sorted(asked.get(k, ()))]
    for p in todo.get("release_probes", []):
        for k, pending, inner_names, nfo_title, named in _read(fs, p, "release_probes", out):
            inner = [n for n in (inner_names or []) if n]
            inner += [t for t in (nfo_title, named) if t]
            if not inner:
                continue
            rel = out.releases.get(k)
            if rel is None:  # its release came in an earlier cycle: size and span looked up
                rel = out.releases[k] = Release(k, group, -1, p.first, p.last, bool(pending))
                unsized.setdefault((p.first, p.last), []).append(rel)
            rel.names += [(n, "inner") for n in dict.fromkeys(inner)]
    for (first, last), rels in unsized.items():
        _fill_sizes(fs, root, group, first, last, {r.key: r for r in rels}, out)


def _fill_sizes(
    fs: Any, root: str, group: str, first: int, last: int, rels: dict[bytes, Release], out: NewNames
) -> None:
    """Size and span of releases named by a probes file whose own rows came earlier: read
    from the partitions of the span it covers (its range, or a compact file over it)."""
    keys = pa.array(list(rels), pa.binary(20))
    content: dict[bytes, int] = {}
    for table in ("release_files", "releases", "pending_releases"):
        for p in list_group(fs, root, table, group, stat=False):
            if p.derived or p.last < first or last < p.first:
                continue
            try:
                t = read_parquet(fs, p.path, _COLUMNS[table][:5])
            except FileNotFoundError:
                continue
            except READ_ERRORS:
                out.damaged.append(p.path)
                continue
            t = t.filter(pc.is_in(t["release_key"], keys))
            for r in t.to_pylist():
                rel = rels[r["release_key"]]
                if table == "release_files":
                    if not (r["name"] or "").lower().endswith(".par2"):
                        content[rel.key] = content.get(rel.key, 0) + int(r["bytes"] or 0)
                    continue
                rel.first_article = int(r["first_article"] or 0)
                rel.last_article = int(r["last_article"] or 0)
                rel.bytes = content.get(rel.key, int(r["bytes"] or 0))


# --- the names index on disk ----------------------------------------------------------


def name_rows(releases: dict[bytes, Release]) -> pa.Table:
    """The releases' names as rows sorted by key (one row per key and release)."""
    rows: list[tuple[Any, ...]] = []
    for rel in releases.values():
        fixed = (rel.key, rel.group, rel.bytes, rel.first_article, rel.last_article, rel.pending)
        rows += [(k, *fixed, WHERE[where]) for k, where, _ in rel.keyed()]
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in NAME_ROWS.names]
    cols = {n: list(c) for n, c in zip(NAME_ROWS.names, columns, strict=True)}
    t = pa.table(cols, schema=NAME_ROWS)
    return t.sort_by([("key", "ascending")]) if t.num_rows else t


def name_keys_of(text: str, where: str) -> list[int]:
    """A name's keys, the name as given (a file's stem was made column-wise when its
    partition was read, an inner name's by `Release.keyed`); a request's (`group:id`) its
    request key."""
    if where == "request":
        group, _, rid = text.rpartition(":")
        return [K.request_key(group, int(rid))]
    return list(_text_keys(text))


@lru_cache(maxsize=1 << 16)
def _text_keys(text: str) -> tuple[int, ...]:
    """A name's keys, once per text: a release's name is mostly its files' stem too."""
    return tuple(K.name_keys(text, stems=False))


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
