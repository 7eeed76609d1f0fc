"""Helpers that compare a built catalog with the generator's ground truth."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import duckdb


@dataclass
class CatalogView:
    """The newest version of each release, and every version's segments, from Parquet."""

    releases: dict[bytes, dict]  # release_key -> newest row
    pending: dict[bytes, dict]
    ids_of: dict[bytes, set[str]]  # release_key -> message-ids over all versions
    release_of: dict[str, set[bytes]]  # message-id -> release keys holding it


def load_catalog(catalog: Path) -> CatalogView:
    con = duckdb.connect()

    def newest(table: str) -> dict[bytes, dict]:
        if not list((catalog / table).glob("*/*.parquet")):
            return {}
        rows = (
            con.sql(
                f"""
            SELECT * FROM read_parquet('{catalog}/{table}/*/*.parquet')
            QUALIFY row_number() OVER (
                PARTITION BY release_key ORDER BY finished DESC, written_range DESC) = 1
            """
            )
            .to_arrow_table()
            .to_pylist()
        )
        return {r["release_key"]: r for r in rows}

    # a finished tombstone (merged_into) hides a release that went into another
    releases = {k: r for k, r in newest("releases").items() if r.get("merged_into") is None}
    pending = newest("pending_releases")
    visible = releases.keys() | pending.keys()
    ids_of: dict[bytes, set[str]] = defaultdict(set)
    release_of: dict[str, set[bytes]] = defaultdict(set)
    files = con.sql(
        f"SELECT release_key, seg_ids FROM read_parquet('{catalog}/release_files/*/*.parquet')"
    ).to_arrow_table()
    for key, ids in zip(
        files.column("release_key").to_pylist(), files.column("seg_ids").to_pylist(), strict=True
    ):
        if key not in visible:
            continue
        ids_of[key].update(ids)
        for mid in ids:
            release_of[mid].add(key)
    return CatalogView(releases, pending, dict(ids_of), dict(release_of))
