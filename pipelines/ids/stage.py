"""The ids of the catalog's releases: `release_ids`, beside the `releases` partitions.

Every `releases` partition (a range's, a compact span's, a tail part, the article pass's
and the merges' versions) gets one `release_ids` partition of the same file name, holding
for each release version it lists (key and name) the entry its name matched, with the
method and the number of candidates; a release that matched nothing has no row. The
server joins them by release key and name (`serving/index/ids.py`), so a renamed release
(the article pass, a merge) shows the ids of its newest name, and its new version's
partition brings them.

Incremental (`pipelines/catalog/changes.py`): per group, the stamp of `releases/<group>`
under the lookup's build; when it moved, only the partitions new or rewritten since the
memo (name and modification time) are read, parsed and matched. A new lookup build
(an import) matches the group's partitions again. Nothing written is rewritten: a
partition's ids are written once per version of that partition (atomically), and a
run stopped before its memo is saved writes the same rows again next time.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.changes import Stamps, table_folders
from pipelines.catalog.partitions import Partition, list_group
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import SCHEMAS
from pipelines.catalog.writer import write_file
from pipelines.corpus.fs import open_fs
from pipelines.ids.lookup import IdLookup
from pipelines.ids.match import IdMatch, match_parsed
from pipelines.names import ParsedName, parse_name

TABLE = "release_ids"
STAGE = "ids"


@dataclass
class IdsSummary:
    groups: int = 0
    partitions: int = 0  # releases partitions read
    releases: int = 0  # release versions matched
    matched: int = 0
    ambiguous: int = 0
    methods: dict[str, int] = field(default_factory=dict)
    lookup: str = ""


def ids_catalog(
    catalog: str, groups: Iterable[str] | None = None, lookup: IdLookup | None = None
) -> IdsSummary:
    """Match the releases new since the last run to the lookup; write `release_ids`."""
    lookup = IdLookup.load(catalog) if lookup is None else lookup
    out = IdsSummary()
    if lookup is None:
        return out  # no lookup imported: nothing to match against
    out.lookup = lookup.build
    fs, root = open_fs(catalog)
    if groups is None:
        try:
            groups = sorted(
                str(p).rsplit("/", 1)[-1] for p in fs.ls(f"{root}/releases", detail=False)
            )
        except FileNotFoundError:
            groups = []
    memos = Stamps(catalog, STAGE)
    for group in groups:
        seen = memos.check(group, table_folders(root, ("releases",), group), extra=lookup.build)
        if seen.same:
            continue
        last = memos.last(group)
        done: dict[str, str] = {}
        if isinstance(last, dict) and last.get("lookup") == lookup.build:
            done = dict(last.get("files", {}))
        partitions = list_group(fs, root, "releases", group)
        for p in partitions:
            name = p.path.rsplit("/", 1)[-1]
            if done.get(name) == p.mtime:
                continue
            _match_partition(fs, root, group, p, lookup, out)
        out.groups += 1
        files = {p.path.rsplit("/", 1)[-1]: p.mtime for p in partitions}
        _drop_orphans(fs, root, group, set(files))
        memos.record(seen, {"lookup": lookup.build, "files": files})
    memos.save()
    return out


def _drop_orphans(fs: Any, root: str, group: str, kept: set[str]) -> None:
    """Remove the ids of `releases` partitions that are gone (a growing range's tail
    parts once the range is indexed whole, ranges compacted into one file)."""
    for p in list_group(fs, root, TABLE, group, stat=False):
        if p.path.rsplit("/", 1)[-1] not in kept:
            with contextlib.suppress(FileNotFoundError):  # removed meanwhile
                fs.rm(p.path)


def _match_partition(
    fs: object, root: str, group: str, p: Partition, lookup: IdLookup, out: IdsSummary
) -> None:
    try:
        rows = read_parquet(fs, p.path, ["release_key", "name"])
    except FileNotFoundError:
        return  # replaced (compacted) since it was listed: its successor is read instead
    rows = rows.filter(pc.is_valid(rows["name"]))
    out.partitions += 1
    seen: dict[str, tuple[ParsedName, IdMatch]] = {}  # a name's versions read it once
    kept: list[dict[str, object]] = []
    now = int(time.time())
    for key, name in zip(rows["release_key"].to_pylist(), rows["name"].to_pylist(), strict=True):
        if name not in seen:
            parsed = parse_name(name)
            seen[name] = (parsed, match_parsed(parsed, lookup))
        parsed, found = seen[name]
        out.releases += 1
        out.methods[found.method] = out.methods.get(found.method, 0) + 1
        if found.method == "ambiguous":
            out.ambiguous += 1
        if found.entry is None and found.method != "ambiguous":
            continue
        out.matched += found.entry is not None
        kept.append(_row(key, name, parsed, found, lookup, now))
    table = pa.Table.from_pylist(kept, SCHEMAS[TABLE])
    write_file(fs, f"{root.rstrip('/')}/{TABLE}/{group}/{p.path.rsplit('/', 1)[-1]}", table, TABLE)


def _row(
    key: bytes, name: str, parsed: ParsedName, found: IdMatch, lookup: IdLookup, now: int
) -> dict[str, object]:
    row: dict[str, object] = {
        "release_key": key,
        "name": name,
        "title": parsed.title,
        "year": parsed.year,
        "season": parsed.season,
        "episode": parsed.episodes[0] if len(parsed.episodes) == 1 else None,
        "method": found.method,
        "candidates": found.candidates,
        "lookup": lookup.build,
        "matched_at": now,
    }
    if found.entry is not None:
        e = found.entry
        row["entry_kind"] = "series" if lookup.kinds[e] else "movie"
        row["title"] = lookup.titles[e]
        row["year"] = int(lookup.years[e]) or None
        row.update({k: v or None for k, v in lookup.ids_of(e).items()})
        row["episode_imdb"] = found.episode_imdb or None
    return row
