"""The catalog as the scorer sees it: the newest version of each release and its segments."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import fsspec

from pipelines.catalog.partitions import list_table
from pipelines.catalog.versions import newest_sql
from pipelines.catalog.views import parquet_sql
from pipelines.judge.store import current_verdicts


@dataclass
class CatalogView:
    """The newest version of each release, and every version's segments, from Parquet."""

    releases: dict[bytes, dict]  # release_key -> newest row
    pending: dict[bytes, dict]
    ids_of: dict[bytes, set[str]]  # release_key -> message-ids over all versions
    release_of: dict[str, set[bytes]]  # message-id -> release keys holding it
    verdicts: dict[bytes, str] = field(default_factory=dict)  # the judge's current rule per key
    # the article pass's password per release key (Newznab's: 0, 1, 2; None unknown), from
    # its finished `release_probes` rows
    passwords: dict[bytes, int | None] = field(default_factory=dict)


def load_catalog(catalog: Path) -> CatalogView:
    con = duckdb.connect()
    fs = fsspec.filesystem("file")

    def rows_of(table: str) -> str | None:
        paths = [p.path for p in list_table(fs, str(catalog), table, stat=False)]
        return parquet_sql(paths) if paths else None

    def newest(table: str) -> dict[bytes, dict]:
        source = rows_of(table)
        if source is None:
            return {}
        # a finished tombstone (merged_into) hides a release that went into another
        sql = newest_sql(source, hide_merged=table == "releases")
        return {r["release_key"]: r for r in con.sql(sql).to_arrow_table().to_pylist()}

    releases = newest("releases")
    pending = newest("pending_releases")
    # a pending release a merge absorbed: its newest releases row is a tombstone
    source = rows_of("releases")
    gone: set[bytes] = set()
    if source is not None:
        sql = f"SELECT release_key FROM ({newest_sql(source, hide_merged=False)}) "
        gone = {r[0] for r in con.sql(sql + "WHERE merged_into IS NOT NULL").fetchall()}
    pending = {k: row for k, row in pending.items() if k not in gone}
    visible = releases.keys() | pending.keys()
    ids_of: dict[bytes, set[str]] = defaultdict(set)
    release_of: dict[str, set[bytes]] = defaultdict(set)
    files = con.sql(f"SELECT release_key, seg_ids FROM {rows_of('release_files')}").to_arrow_table()
    for key, ids in zip(
        files.column("release_key").to_pylist(), files.column("seg_ids").to_pylist(), strict=True
    ):
        if key not in visible:
            continue
        ids_of[key].update(ids)
        for mid in ids:
            release_of[mid].add(key)
    judged = current_verdicts(str(catalog))
    verdicts = dict(
        zip(
            judged.column("release_key").to_pylist(), judged.column("rule").to_pylist(), strict=True
        )
    )
    passwords: dict[bytes, int | None] = {}
    probes = rows_of("release_probes")
    if probes is not None:
        sql = f"SELECT release_key, password FROM {probes} WHERE outcome <> 'waiting' "
        for key, password in con.sql(sql + "ORDER BY probed_at").fetchall():
            passwords[key] = password
    return CatalogView(releases, pending, dict(ids_of), dict(release_of), verdicts, passwords)
