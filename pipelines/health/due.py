"""The releases a health pass checks now, read group by group, only where something moved.

Whether a release is due depends on its last post, its last check and the clock
(`cadence.py`), and due only grows with time. So a group's due releases change when its
`releases` or `release_health` folder moves (a new range, a merge, a named upload, a
check stored) or when the clock passes the earliest time one of them falls due. Each
group keeps that time as its memo, under the stamp of its two folders
(`pipelines.catalog.changes`): a pass reads a group's releases and checks only when the
stamp moved or the time has come, and an idle pass reads nothing but the memo file.

A group read gives the same releases as the catalog view (`pipelines.catalog.views`:
the newest version of each key, tombstones hidden): a release's versions all lie in its
owner group's folder, header pass, article pass and merges alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.changes import Stamps, table_folders
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.partitions import Partition, list_group
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASES
from pipelines.catalog.versions import hidden, key_array, newest_rows
from pipelines.corpus.fs import open_fs
from pipelines.health.cadence import Cadence
from pipelines.health.candidates import Candidate, checked_at, next_due, pick
from pipelines.health.store import TABLE, health_fold, newest_per_key

COLUMNS = ["release_key", "group", "posted_last", "first_article", "last_article", "finished",
           "written_range", "merged_into"]  # fmt: skip
NEVER = 1 << 62


@dataclass
class DueReleases:
    candidates: list[Candidate] = field(default_factory=list)
    groups_read: int = 0  # groups whose releases and checks were read this pass
    damaged: list[str] = field(default_factory=list)


def group_releases(
    catalog: str, group: str, damaged: list[str], parts: list[Partition] | None = None
) -> pa.Table:
    """The group's current releases (newest version per key, tombstones hidden) with a
    last post and a group: the columns a health candidate needs, and `part`, the index
    in `parts` (default: every partition of the group) of the partition each came from."""
    fs, root = open_fs(catalog)
    if parts is None:
        parts = list_group(fs, root, "releases", group, stat=False)
    tables = []
    for i, p in enumerate(parts):
        try:
            t = read_parquet(fs, p.path, [c for c in COLUMNS])
        except FileNotFoundError:
            continue
        except (*READ_ERRORS, KeyError) as exc:  # type: ignore[misc]
            try:  # an older file without a column: read whole, the column made null
                t = read_parquet(fs, p.path)
            except FileNotFoundError:
                continue
            except READ_ERRORS:
                damaged.append(f"{p.path}: {type(exc).__name__}: {exc}")
                continue
        cols = [t[c] if c in t.column_names else pa.nulls(t.num_rows, RELEASES.field(c).type)
                for c in COLUMNS]  # fmt: skip
        cols.append(pa.array(np.full(t.num_rows, i, dtype=np.int32)))
        tables.append(pa.table(cols, names=[*COLUMNS, "part"]))
    if not tables:
        empty = {c: pa.array([], RELEASES.field(c).type) for c in COLUMNS}
        return pa.table({**empty, "part": pa.array([], pa.int32())})
    rel = pa.concat_tables(tables, promote_options="default")
    rel = rel.take(pa.array(newest_rows(rel)))
    rel = rel.filter(pa.array(~hidden(rel)))
    keep = pc.and_(pc.is_valid(rel["posted_last"]), pc.is_valid(rel["group"]))
    return rel.filter(keep)


def due_now(
    catalog: str,
    now: int,
    cadence: Cadence,
    groups: Iterable[str] | None = None,
    limit: int | None = None,
) -> DueReleases:
    """The releases due at `now`, in the order they are checked (as `due_candidates`
    over the catalog's views gives them), reading only the groups that moved or fell due,
    and of those the partitions new or rewritten since, or falling due."""
    fs, root = open_fs(catalog)
    if groups is None:
        try:
            groups = sorted(str(p).rsplit("/", 1)[-1]
                            for p in fs.ls(f"{root}/releases", detail=False))  # fmt: skip
        except FileNotFoundError:
            groups = []
    memos = Stamps(catalog, "health")
    out = DueReleases()
    found: list[pa.Table] = []
    currents: list[pa.Table] = []
    for group in groups:
        folders = table_folders(root, ("releases", TABLE), group)
        seen = memos.check(group, folders, extra=repr(cadence))
        if seen.same and isinstance(seen.memo, dict) and now < int(seen.memo["next"]):
            continue  # nothing there falls due before its memo's time
        before = memos.last(group)
        rel, current, memo = _group_due(catalog, group, before, now, cadence, out.damaged)
        out.groups_read += 1
        memos.record(seen, memo)
        if rel.num_rows:
            found.append(rel)
            currents.append(current)
    memos.save()
    if found:
        out.candidates = pick(pa.concat_tables(found), pa.concat_tables(currents), now, cadence,
                              limit)  # fmt: skip
    return out


def _group_due(
    catalog: str, group: str, before: Any, now: int, cadence: Cadence, damaged: list[str]
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """A group's releases due at `now` and their checks, and its new memo: per partition
    its time and the earliest time one of its releases falls due, and the group's.

    Read: the partitions new or rewritten since the memo, those with a release due, and
    the merges' and imports' (their tombstones hide releases of other partitions). A check only puts
    a release's next due time later, so a partition not read keeps a time that is never
    late; a tombstone or a newer version elsewhere only takes releases away."""
    fs, root = open_fs(catalog)
    parts = list_group(fs, root, "releases", group)
    old = before.get("parts", {}) if isinstance(before, dict) else {}
    name = {p.path: p.path.rsplit("/", 1)[-1] for p in parts}
    # merges' and imports' partitions are always read: their tombstones (a merge's, a
    # deleted spot's) hide releases of other partitions
    read = [
        p for p in parts
        if p.merge or p.imported or name[p.path] not in old or old[name[p.path]][0] != p.mtime
        or int(old[name[p.path]][1]) <= now
    ]  # fmt: skip
    rel = group_releases(catalog, group, damaged, read)
    keys = rel["release_key"]
    checks = health_fold(catalog, group)
    damaged += checks.damaged
    current = newest_per_key(checks.rows_of(key_array(keys)))
    posted = rel["posted_last"].to_numpy(zero_copy_only=False).astype(np.int64)
    when = next_due(posted, checked_at(key_array(keys), current, posted), cadence)
    earliest = np.full(len(read), NEVER, dtype=np.int64)
    np.minimum.at(earliest, rel["part"].to_numpy(zero_copy_only=False), when)
    kept = {name[p.path]: old[name[p.path]] for p in parts if p not in read}
    kept.update({name[p.path]: [p.mtime, int(t)] for p, t in zip(read, earliest, strict=True)})
    memo = {"next": min((int(v[1]) for v in kept.values()), default=NEVER), "parts": kept}
    due = when <= now
    cols = ["release_key", "group", "posted_last", "first_article", "last_article"]
    return rel.filter(pa.array(due)).select(cols), current, memo
