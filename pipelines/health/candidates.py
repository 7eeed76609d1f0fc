"""Which releases a sweep checks, in which order, and their segments.

Never-checked releases come first (the newest posted first: take-downs come soon after
posting), then those whose recheck is due by the cadence, the longest unchecked first.
A stamp (a check whose answer was unusable) counts as a check: the release waits out its
recheck like any other rather than leading every batch. A release whose version grew
since its check (a later `posted_last`) counts as never checked. The current version of
each release is the catalog's (`pipelines.catalog.views`); tombstoned releases are not
checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import numpy as np
import pyarrow as pa

from pipelines.catalog.partitions import parse_name
from pipelines.catalog.schema import KEY
from pipelines.catalog.versions import key_array
from pipelines.catalog.views import CatalogViews, parquet_sql
from pipelines.health.cadence import Cadence
from pipelines.health.sample import ReleaseSegments
from pipelines.health.verdicts import recovery_share

_NO_INDEX = 1 << 30  # files without an [i/N] index go after the indexed ones


@dataclass(frozen=True)
class Candidate:
    release_key: bytes
    group: str
    posted_last: int
    checked_at: int | None  # the last check; None: never
    first_article: int | None = None  # its span in the owner group (which partitions
    last_article: int | None = None  # of release_files can hold its files)


def due_candidates(
    views: CatalogViews,
    current: pa.Table,
    now: int,
    cadence: Cadence,
    groups: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[Candidate]:
    """The releases due at `now`, in the order they are checked (`current`: the
    `latest_health` rows)."""
    where = 'WHERE posted_last IS NOT NULL AND "group" IS NOT NULL'
    params: list[object] = []
    if groups is not None:
        where += ' AND "group" IN (SELECT unnest(?))'
        params.append(list(groups))
    rel = views.query(
        f'SELECT release_key, "group", posted_last, first_article, last_article FROM releases '
        f"{where}",
        params,
    )
    if rel.num_rows == 0:
        return []
    keys = key_array(rel.column("release_key").cast(KEY))  # DuckDB gives variable binary
    posted = rel.column("posted_last").to_numpy(zero_copy_only=False).astype(np.int64)
    checked = np.full(len(keys), -1, dtype=np.int64)
    if current.num_rows:
        known = key_array(current.column("release_key"))
        at = current.column("checked_at").to_numpy(zero_copy_only=False).astype(np.int64)
        order = np.argsort(known)
        known, at = known[order], at[order]
        pos = np.minimum(np.searchsorted(known, keys), len(known) - 1)
        hit = known[pos] == keys
        checked[hit] = at[pos[hit]]
        # a release that grew since its check (checked while still being posted: its par2
        # volumes and last articles not there yet) counts as never checked: what was
        # missing then may be repairable now
        was = current.column("posted_last").to_numpy(zero_copy_only=False)
        was = np.nan_to_num(was.astype(np.float64), nan=np.inf)[order]
        checked[hit & (posted > was[pos])] = -1
    due = np.flatnonzero(cadence.due_mask(posted, checked, now))
    never = checked[due] < 0
    # never checked first (newest posted first), then the longest unchecked first
    order = np.lexsort((keys[due], np.where(never, -posted[due], checked[due]), ~never))
    picked = due[order][:limit] if limit is not None else due[order]
    group_col = rel.column("group").to_pylist()
    # the keys as Arrow gives them: a numpy 'S20' item drops trailing zero bytes
    key_col = rel.column("release_key").cast(KEY).to_pylist()
    firsts, lasts = rel.column("first_article").to_pylist(), rel.column("last_article").to_pylist()
    out = []
    for i in picked:
        last = None if checked[i] < 0 else int(checked[i])
        out.append(Candidate(key_col[i], group_col[i], int(posted[i]), last, firsts[i], lasts[i]))
    return out


def _partitions_for(views: CatalogViews, batch: list[Candidate]) -> list[str] | None:
    """The release_files partitions whose spans meet the batch's releases' article spans
    (per group, the hull of them: a batch's releases were posted close together); None
    when a release's span is unknown."""
    hull: dict[str, tuple[int, int]] = {}
    for c in batch:
        if c.first_article is None or c.last_article is None:
            return None
        low, high = hull.get(c.group, (c.first_article, c.last_article))
        hull[c.group] = (min(low, c.first_article), max(high, c.last_article))
    out = []
    for path in views.files.get("release_files", []):
        group, name = path.rsplit("/", 2)[-2:]
        span = parse_name(name)
        if span is not None and group in hull:
            low, high = hull[group]
            if span.first <= high and low <= span.last:
                out.append(path)
    return out


def segments_of(views: CatalogViews, batch: list[Candidate]) -> dict[bytes, ReleaseSegments]:
    """The segments of each release of a batch, from every range that wrote its files (a
    part number written twice: the later range's message-id)."""
    if not batch:
        return {}
    # only the partitions that can hold the batch's files: the whole chunk store scanned
    # for every batch made reading the catalog cost as much as the STATs on a large one
    keys = [c.release_key for c in batch]
    paths = _partitions_for(views, batch)
    rows = _file_rows(views, parquet_sql(paths), keys) if paths else []
    found = {bytes(r["release_key"]) for r in rows}
    rest = [k for k in keys if k not in found]
    if paths is None or rest:  # a span unknown, or files elsewhere: the whole table
        rows += _file_rows(views, "release_files", rest if paths is not None else keys)
    files: dict[bytes, dict[str, tuple[int, int, dict[int, str]]]] = {}
    for row in rows:
        per = files.setdefault(bytes(row["release_key"]), {})
        index, size, segs = per.get(row["name"], (_NO_INDEX, 0, {}))
        if row["file_index"] is not None:
            index = min(index, row["file_index"])
        size = max(size, row["bytes"] or 0)
        for number, mid in zip(row["seg_numbers"] or [], row["seg_ids"] or [], strict=False):
            if mid:
                segs[number] = mid
        per[row["name"]] = (index, size, segs)
    out = {}
    for c in batch:
        per = files.get(c.release_key, {})
        ordered = sorted(per.items(), key=lambda kv: (kv[1][0], kv[0]))
        ids = tuple(mid for _, (_, _, segs) in ordered for _, mid in sorted(segs.items()))
        ends = tuple(accumulate(len(segs) for _, (_, _, segs) in ordered))
        recovery = recovery_share([n for n, _ in ordered], [v[1] for _, v in ordered])
        out[c.release_key] = ReleaseSegments(
            c.release_key, c.group, c.posted_last, ids, recovery, tuple(e - 1 for e in ends if e)
        )
    return out


def _file_rows(views: CatalogViews, relation: str, keys: list[bytes]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = views.query(
        "SELECT release_key, written_range, name, file_index, bytes, seg_numbers, seg_ids "
        f"FROM {relation} WHERE release_key IN (SELECT unnest(?)) ORDER BY written_range",
        [keys],
    ).to_pylist()
    return rows
