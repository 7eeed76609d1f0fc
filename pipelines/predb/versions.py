"""A pre's title as a new catalog version of the releases it matched.

The release's newest version (the read rule of `pipelines.catalog.versions`, over the
partitions of its owner group that cover its articles) is copied with the pre's exact
title as its name, `source` = `predb`, the category the title gives, and a
`written_range` one above the newest's: it outranks every version before it, and a later
merge or rename outranks it in turn. A pending release (a random or hashed stem nobody
named yet) becomes a catalog release under its pending key, as the article pass names
one. A release whose newest version is a tombstone (it went into another) is left alone.
Nothing written is rewritten: each cycle's versions of a group are one new file
`releases/<group>/predb-<first>-<last>.parquet` over their articles (the span widened
past a name already taken).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipelines import naming
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.layout import partition_path
from pipelines.catalog.partitions import list_group
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASES
from pipelines.catalog.versions import newest_rows
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.predb.match import Candidate
from pipelines.predb.sections import section_category

SOURCE = "predb"


def _versions(fs: Any, root: str, group: str, links: list[Candidate]) -> tuple[pa.Table, pa.Table]:
    """The `releases` and `pending_releases` rows of the linked keys in the group's
    partitions that cover their articles."""
    keys = pa.array([c.release_key for c in links], pa.binary(20))
    lo = min(c.first_article for c in links)
    hi = max(c.last_article for c in links)
    found: dict[str, list[pa.Table]] = {"releases": [], "pending_releases": []}
    for table in found:
        for p in list_group(fs, root, table, group, stat=False):
            if p.last < lo or hi < p.first:
                continue
            try:
                t = read_parquet(fs, p.path)
            except FileNotFoundError:
                continue
            except READ_ERRORS:
                continue  # a damaged partition: the health of the catalog reports it
            t = t.filter(pc.is_in(t["release_key"], keys))
            if t.num_rows:
                found[table].append(t)
    rel = (
        pa.concat_tables(found["releases"], promote_options="permissive")
        if found["releases"]
        else None
    )
    pend = (
        pa.concat_tables(found["pending_releases"], promote_options="permissive")
        if found["pending_releases"]
        else None
    )
    return (
        rel if rel is not None else RELEASES.empty_table(),
        pend if pend is not None else pa.table({"release_key": pa.array([], pa.binary(20))}),
    )


def renamed_rows(
    catalog: str,
    group: str,
    links: list[tuple[Candidate, str]],
    sections: dict[str, str] | None = None,
) -> tuple[list[dict[str, Any]], dict[bytes, int]]:
    """The new version of each linked release (links: candidate, the pre's title; `sections`:
    each title's PreDB section, the category when the title gives none); a link
    whose release has no version to copy, or is hidden, gives none."""
    fs, root = open_fs(catalog)
    rel, pend = _versions(fs, root, group, [c for c, _ in links])
    newest: dict[bytes, dict[str, Any]] = {}
    if rel.num_rows:
        for row in rel.take(newest_rows(rel)).to_pylist():  # one conversion, not one a row
            newest[row["release_key"]] = row
    pending: dict[bytes, dict[str, Any]] = {}
    for row in pend.to_pylist():
        was = pending.get(row["release_key"])
        if was is None or int(row.get("written_range") or 0) > int(was.get("written_range") or 0):
            pending[row["release_key"]] = row
    out = []
    done: dict[bytes, int] = {}
    for c, title in links:
        base = newest.get(c.release_key)
        if base is None and c.release_key in pending:
            base = _from_pending(pending[c.release_key])
        if base is None or base.get("merged_into") is not None:
            continue
        if base.get("source") == SOURCE and base.get("name") == title:
            done[c.release_key] = int(base.get("written_range") or 0)
            continue
        row = {k: base.get(k) for k in RELEASES.names}
        groups = list(row.get("groups") or [group])
        # the title's own words first, then the PreDB's section, then the groups
        category = int(naming.category_of(title, []))
        if _says_nothing(category):
            category = section_category((sections or {}).get(title))
        if _says_nothing(category):
            category = int(naming.category_of(title, groups))
        row.update(
            name=title, source=SOURCE, readable=True, finished=True, merged_into=None,
            category=category,
            written_range=int(base.get("written_range") or 0) + 1,
        )  # fmt: skip
        out.append(row)
    return out, done


def _says_nothing(category: int) -> bool:
    """No category, or Other (8000s: misc, hashed)."""
    return category < 1000 or category // 1000 == 8


def _from_pending(p: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: p.get(k) for k in RELEASES.names if k in p},
        "has_par2": False,
        "members": None,
        "category": None,
    }


def write_versions(catalog: str, group: str, rows: list[dict[str, Any]]) -> str | None:
    """One new `predb-` file of the group holding the rows; its path."""
    if not rows:
        return None
    fs, root = open_fs(catalog)
    first = min(int(r["first_article"] or 0) for r in rows)
    last = max(int(r["last_article"] or 0) for r in rows)
    path = partition_path(root, "releases", group, first, last, predb=True)
    while fs.exists(path):  # that span has a file already: never rewrite it
        last += 1
        path = partition_path(root, "releases", group, first, last, predb=True)
    table = pa.Table.from_pylist(sorted(rows, key=lambda r: r["release_key"]), schema=RELEASES)
    atomic_put(fs, path, parquet_bytes(table, "releases"))
    return path
