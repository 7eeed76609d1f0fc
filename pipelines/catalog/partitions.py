"""Which partitions a catalog table has: the one listing every reader uses.

A partition is a whole Parquet file named for the article span it covers
(`layout.py`): `<table>/<group>/<first>-<last>.parquet`, `compact-<first>-<last>.parquet`
after compaction, or `tail-<first>-<last>.parquet` for a growing range's part. Anything
else in a table's folders is not a partition: a `.tmp-*` file being written, a file of
another name. The serving views, the search index, the
NZB lookup and export, compaction and the asset checks all list through here.

A server lists every `refresh_seconds` (1 s in the bench), in every worker: through
fsspec's glob and one `info` per file that cost ~12 ms of CPU a second per worker for
100 partitions, holding the GIL while a download or a search waited. On a local catalog
one `scandir` per group folder gives the same paths, sizes and modification times for a
fraction of that; other file systems go through fsspec.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, NamedTuple

from fsspec import AbstractFileSystem

from pipelines.catalog.layout import (
    COMPACT_PREFIX,
    IMPORT_PREFIX,
    MERGE_PREFIX,
    PREDB_PREFIX,
    PROBE_PREFIX,
    TAIL_PREFIX,
    table_glob,
)
from pipelines.corpus.fs import is_temporary
from pipelines.corpus.layout import parse_span

SUFFIX = ".parquet"


@dataclass(frozen=True, order=True)
class Partition:
    """One partition and the article span it covers; its size and modification time
    (as fsspec's `info` gives it, in text) when listed with `stat`."""

    first: int
    last: int
    path: str
    compact: bool = False
    size: int | None = None
    mtime: str = ""
    tail: bool = False  # a growing range's part (`tail-<a>-<b>`), never compacted
    probe: bool = False  # the article pass's rows for a range (`probe-<a>-<b>`), never compacted
    merge: bool = False  # the merges' versions and file rows (`merge-<a>-<b>`), never compacted
    imported: bool = False  # imported NZBs' releases and files (`import-<a>-<b>`)
    predb: bool = False  # the PreDB's renamed versions (`predb-<a>-<b>`), never compacted

    @property
    def derived(self) -> bool:
        """Written by a later pass (or a growing range's part), not a range's own rows."""
        return self.tail or self.probe or self.merge or self.imported or self.predb


class PartitionName(NamedTuple):
    first: int
    last: int
    compact: bool
    tail: bool = False
    probe: bool = False
    merge: bool = False
    imported: bool = False
    predb: bool = False


@functools.lru_cache(maxsize=1 << 16)  # a live loop lists the same folders cycle after cycle
def parse_name(name: str) -> PartitionName | None:
    """`"0-1999.parquet"` -> (0, 1999, False, False), `"compact-0-5999.parquet"` -> (0,
    5999, True, False), `"tail-0-499.parquet"` -> (0, 499, False, True), `"probe-0-1999.parquet"`
    -> (0, 1999, False, False, True), `"merge-0-1999.parquet"` likewise with `merge`; None
    for any other name (a temporary file, another file)."""
    if not name.endswith(SUFFIX) or is_temporary(name):
        return None
    stem = name[: -len(SUFFIX)]
    kinds = ((COMPACT_PREFIX, True, False, False, False), (TAIL_PREFIX, False, True, False, False),
             (PROBE_PREFIX, False, False, True, False),
             (MERGE_PREFIX, False, False, False, True))  # fmt: skip
    for prefix, compact, tail, probe, merge in kinds:
        if stem.startswith(prefix):
            span = parse_span(stem[len(prefix) :])
            if span is None:
                return None
            return PartitionName(span[0], span[1], compact, tail, probe, merge)
    if stem.startswith(IMPORT_PREFIX):
        span = parse_span(stem[len(IMPORT_PREFIX) :])
        return None if span is None else PartitionName(*span, False, imported=True)
    if stem.startswith(PREDB_PREFIX):
        span = parse_span(stem[len(PREDB_PREFIX) :])
        return None if span is None else PartitionName(span[0], span[1], False, predb=True)
    span = parse_span(stem)
    return None if span is None else PartitionName(span[0], span[1], False)


def is_local(fs: AbstractFileSystem) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return protocol in ("file", "local")


def stat_of(info: dict[str, Any]) -> tuple[int | None, str]:
    """Size and modification time (in text) from an fsspec `info` of any file system."""
    mtime = info.get("mtime") or info.get("LastModified") or info.get("updated")
    return info.get("size"), str(mtime)


def _partition(path: str, size: int | None = None, mtime: str = "") -> Partition | None:
    parsed = parse_name(path.rsplit("/", 1)[-1])
    if parsed is None:
        return None
    return Partition(
        parsed.first, parsed.last, path, parsed.compact, size, mtime, parsed.tail, parsed.probe,
        parsed.merge, parsed.imported, parsed.predb,
    )  # fmt: skip


def _scan(folder: str, stat: bool) -> list[Partition]:
    """The partitions in one local folder (a group's), in no particular order."""
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:  # no such table or group, or removed while listing
        return []
    found = []
    for entry in entries:
        part = _partition(f"{folder}/{entry.name}")
        if part is None:
            continue
        if stat:
            try:
                info = entry.stat()
            except FileNotFoundError:
                continue
            part = Partition(part.first, part.last, part.path, part.compact,
                             info.st_size, str(info.st_mtime), part.tail, part.probe,
                             part.merge, part.imported, part.predb)  # fmt: skip
        found.append(part)
    return found


def _parse(found: list[str] | dict[str, dict[str, Any]], stat: bool) -> list[Partition]:
    """Partitions from an fsspec listing: paths, or paths with their `info`."""
    parts = []
    for path in found:
        size, mtime = stat_of(found[path]) if stat and isinstance(found, dict) else (None, "")
        part = _partition(str(path), size, mtime)
        if part is not None:
            parts.append(part)
    return parts


def list_table(fs: AbstractFileSystem, root: str, table: str, stat: bool = True) -> list[Partition]:
    """Every partition of `table`, every group, sorted by path."""
    if not is_local(fs):
        # detail: sizes and mtimes come with the listing (one request on object stores)
        found = _parse(fs.glob(table_glob(root, table), detail=stat), stat)
        return sorted(found, key=lambda p: p.path)
    base = f"{root.rstrip('/')}/{table}"
    try:
        groups = [e.name for e in os.scandir(base) if e.is_dir()]
    except FileNotFoundError:
        return []
    found = [p for group in groups for p in _scan(f"{base}/{group}", stat)]
    return sorted(found, key=lambda p: p.path)


def list_group(
    fs: AbstractFileSystem, root: str, table: str, group: str, stat: bool = True
) -> list[Partition]:
    """The partitions of `table` for `group`, oldest span first."""
    folder = f"{root.rstrip('/')}/{table}/{group}"
    if is_local(fs):
        return sorted(_scan(folder, stat))
    try:
        listed = fs.ls(folder, detail=stat)
    except FileNotFoundError:
        return []
    if stat:
        return sorted(_parse({str(i["name"]): i for i in listed}, stat))
    return sorted(_parse([str(p) for p in listed], stat))


def files_written(releases: list[Partition], files: list[Partition]) -> list[Partition]:
    """The `releases` partitions whose ranges' `release_files` partitions exist too.

    The header pass writes a range's `releases` partition before its `release_files`
    (`pipelines/index/range_indexer.py`), and writing the chunk store takes seconds: a
    server that indexed the releases of a range landing would answer a download of one
    of its new releases with none of its files. A per-range partition is taken once the
    `release_files` partition of the same group and span is there, or a compact one
    covers its span (its range was compacted); a compact `releases` file always. Not
    modification times: a copied or restored catalog has any order of them. (A range
    written again over its old files is taken at once, its old file rows still there.)
    Partitions of both tables as `list_table` gives them.
    """
    same: set[tuple[str, int, int]] = set()
    compact: dict[str, list[Partition]] = {}
    for f in files:
        group = f.path.rsplit("/", 2)[-2]
        if f.compact:
            compact.setdefault(group, []).append(f)
        else:
            same.add((group, f.first, f.last))
    out = []
    for r in releases:
        group = r.path.rsplit("/", 2)[-2]
        covered = any(c.first <= r.first and r.last <= c.last for c in compact.get(group, []))
        # a PreDB version renames a release whose files are written already
        if r.compact or r.predb or covered or (group, r.first, r.last) in same:
            out.append(r)
    return out
