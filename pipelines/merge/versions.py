"""A merge as a catalog version: the whole's `releases` row, tombstones for the absorbed
keys, their `release_files` rows under the whole's key, the record.

The merged row takes the target's key, and its `written_range` is the merged span's last
article + 1: above every version the header pass, the article pass or an earlier merge
wrote of the keys involved (all of spans up to this one), so it outranks them, and a
later span's merge outranks it in turn. The whole's counters are its members' sums and
spans; its name is the target's when it has a readable one, else the par2 set's.

Completeness: a whole with a counter (the target's `[i/N]`) is complete when it holds N
files or more and no file is short of parts; without one, par2 decides: every file the
set lists is there (by 16 KiB hash and size, or by name without case or punctuation) and
no file is short of parts; a sidecar's whole without either keeps its members' verdict.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipelines import naming
from pipelines.catalog.health import reading
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASE_FILES, RELEASE_MERGES, RELEASES
from pipelines.corpus.fs import open_fs
from pipelines.merge import rules
from pipelines.merge.frame import Frame, Par2Facts, Release
from pipelines.probe.learned import name_of_listing
from pipelines.subjects.file_names import classify


def merged_row(
    frame: Frame, into: Release, members: list[Release], facts: Par2Facts | None, written: int
) -> dict[str, Any] | None:
    """The whole's `releases` row; None when nothing gives it a readable name."""
    whole = [into, *members]
    name, source = _name(into, members, facts)
    if name is None:
        return None
    groups = sorted({g for r in whole for g in (r.full().get("groups") or [frame.group])})
    row = {k: into.full().get(k) for k in RELEASES.names}
    if name != into.name or row.get("category") is None:
        row["category"] = _category(name, groups, facts)
    row.update(
        {
            "release_key": into.key,
            "name": name,
            "group": frame.group,
            "groups": groups,
            "posted_first": min(r.first for r in whole),
            "posted_last": max(r.last for r in whole),
            "first_article": min(int(r.full().get("first_article") or 0) for r in whole),
            "last_article": max(int(r.full().get("last_article") or 0) for r in whole),
            "files": sum(r.file_count for r in whole),
            "file_total": into.full().get("file_total"),
            "segments": sum(int(r.full().get("segments") or 0) for r in whole),
            "bytes": sum(r.nbytes for r in whole),
            "complete": _complete(into, whole, facts),
            "readable": True,
            "has_par2": any(
                bool(r.full().get("has_par2")) or bool(r.sets)
                or any(rules.ext_class(n) in rules.PAR2_FILES for n in r.files)
                for r in whole
            ),
            "source": source,
            "finished": True,
            "written_range": written,
            "merged_into": None,
        }
    )  # fmt: skip
    return {k: row.get(k) for k in RELEASES.names}


def _name(into: Release, members: list[Release], facts: Par2Facts | None) -> tuple[str | None, str]:
    if into.full().get("readable") and into.name:  # a catalog version (a pending row has none)
        return into.name, str(into.full().get("source") or "subject")
    if facts is not None:
        found = name_of_listing(facts.names, facts.sizes)
        if found:
            return found, "par2"
    for r in members:  # a catalog member's name, the set saying none
        if not r.pending and r.name:
            return r.name, str(r.full().get("source") or "subject")
    return None, ""


def _category(name: str, groups: list[str], facts: Par2Facts | None) -> int:
    names = facts.names if facts is not None else []
    sizes = facts.sizes if facts is not None else []
    classes = [classify(n.encode("utf-8", "surrogateescape"))[0] for n in names]
    content = naming.content_of(
        classes,
        [int(sizes[i] or 0) if i < len(sizes) else 0 for i in range(len(names))],
        [n.encode("utf-8", "surrogateescape") for n in names],
    )
    return int(naming.category_of(name, groups, content))


def _complete(into: Release, whole: list[Release], facts: Par2Facts | None) -> bool:
    if any(f.short for r in whole for f in r.files.values()):
        return False
    total = into.full().get("file_total")
    if total is not None:
        return sum(r.file_count for r in whole) >= int(total)
    if facts is not None:
        heads = {h for r in whole for h in r.heads.values()}
        plain = {rules.plain_name(n) for r in whole for n in r.files}
        for i, listed in enumerate(facts.names):
            size = facts.sizes[i] if i < len(facts.sizes) else None
            h = facts.hashes[i] if i < len(facts.hashes) else None
            if h is not None and size is not None and (h, int(size)) in heads:
                continue
            if rules.plain_name(listed) not in plain:
                return False
        return True
    return all(bool(r.full().get("complete")) for r in whole)


def tombstone(
    frame: Frame, rel: Release, into: bytes, written: int, rules_version: str
) -> dict[str, Any]:
    """A finished row hiding an absorbed key (it went into `into`)."""
    row = {k: rel.full().get(k) for k in RELEASES.names}
    row.update(
        {
            "group": frame.group,
            "finished": True,
            "written_range": written,
            "rules_version": rel.full().get("rules_version") or rules_version,
            "merged_into": into,
        }
    )
    return row


def record(frame: Frame, from_key: bytes, into: bytes, via: str, par2_set: bytes | None,
           merged_at: int, written: int) -> dict[str, Any]:  # fmt: skip
    return {
        "from_key": from_key,
        "into_key": into,
        "group": frame.group,
        "via": via,
        "par2_set": par2_set if via == "par2" else None,
        "merged_at": merged_at,
        "written_range": written,
    }


def absorbed_files(frame: Frame, moves: dict[bytes, bytes], written: int) -> pa.Table:
    """The absorbed releases' `release_files` rows (every version's) under their whole's
    key, sorted as the chunk store is (key, file name)."""
    if not moves:
        return RELEASE_FILES.empty_table()
    fs, _ = open_fs(frame.catalog)
    keys = pa.array(list(moves), pa.binary(20))
    found = []
    for p in frame.header_files:
        try:
            with reading(p.path):
                t = read_parquet(fs, p.path)
        except FileNotFoundError:
            continue
        t = t.filter(pc.is_in(t["release_key"], keys))
        if t.num_rows:
            found.append(t.cast(RELEASE_FILES))
    if not found:
        return RELEASE_FILES.empty_table()
    rows = pa.concat_tables(found)
    into = pa.array([moves[k] for k in rows["release_key"].to_pylist()], pa.binary(20))
    rows = rows.set_column(0, "release_key", into)
    rows = rows.set_column(1, "written_range", pa.array([written] * rows.num_rows, pa.int64()))
    return rows.sort_by([("release_key", "ascending"), ("name", "ascending")])


def tables(
    releases: list[dict[str, Any]], records: list[dict[str, Any]]
) -> tuple[pa.Table, pa.Table]:
    rel = pa.Table.from_pylist(releases, schema=RELEASES).sort_by([("release_key", "ascending")])
    rec = pa.Table.from_pylist(records, schema=RELEASE_MERGES).sort_by(
        [("into_key", "ascending"), ("from_key", "ascending")]
    )
    return rel, rec
