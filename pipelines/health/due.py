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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.changes import Stamps, table_folders
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.partitions import list_group
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASES
from pipelines.catalog.versions import hidden, key_array, newest_rows
from pipelines.corpus.fs import open_fs
from pipelines.health.cadence import Cadence
from pipelines.health.candidates import Candidate, checked_at, next_due, pick
from pipelines.health.store import TABLE, newest_per_key, read_health

COLUMNS = ["release_key", "group", "posted_last", "first_article", "last_article", "finished",
           "written_range", "merged_into"]  # fmt: skip
NEVER = 1 << 62


@dataclass
class DueReleases:
    candidates: list[Candidate] = field(default_factory=list)
    groups_read: int = 0  # groups whose releases and checks were read this pass
    damaged: list[str] = field(default_factory=list)


def group_releases(catalog: str, group: str, damaged: list[str]) -> pa.Table:
    """The group's current releases (newest version per key, tombstones hidden) with a
    last post and a group: the columns a health candidate needs."""
    fs, root = open_fs(catalog)
    parts = []
    for p in list_group(fs, root, "releases", group, stat=False):
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
        parts.append(pa.table(cols, names=COLUMNS))
    if not parts:
        return pa.table({c: pa.array([], RELEASES.field(c).type) for c in COLUMNS})
    rel = pa.concat_tables(parts, promote_options="default")
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
    over the catalog's views gives them), reading only the groups that moved or fell due."""
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
        seen = memos.check(
            group, table_folders(root, ("releases", TABLE), group), extra=repr(cadence)
        )
        if seen.same and now < int(seen.memo):
            continue  # nothing there falls due before its memo's time
        rel = group_releases(catalog, group, out.damaged)
        stored = read_health(catalog, group)
        out.damaged += stored.damaged
        current = newest_per_key(stored.rows)
        out.groups_read += 1
        posted = rel["posted_last"].to_numpy(zero_copy_only=False).astype(np.int64)
        checked = checked_at(key_array(rel["release_key"]), current)
        when = next_due(posted, checked, cadence)
        memos.record(seen, int(when.min()) if len(when) else NEVER)
        if np.any(when <= now):
            found.append(rel.select(["release_key", "group", "posted_last", "first_article",
                                     "last_article"]))  # fmt: skip
            currents.append(current)
    memos.save()
    if found:
        rel = pa.concat_tables(found)
        current = pa.concat_tables(currents)
        out.candidates = pick(rel, current, now, cadence, limit)
    return out
