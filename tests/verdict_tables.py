"""Writers of test rows of the merges', the health sweep's and the judge's tables (their
schemas are `pipelines/catalog/schema.py`'s), as the serving tests lay them down."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.catalog.schema import RELEASE_HEALTH, RELEASE_MERGES, RELEASE_VERDICTS
from pipelines.corpus.fs import open_fs

SCHEMAS = {"release_merges": RELEASE_MERGES, "release_health": RELEASE_HEALTH,
           "release_verdicts": RELEASE_VERDICTS}  # fmt: skip


def write_rows(catalog: str, table: str, group: str, name: str, rows: list[dict[str, Any]]) -> str:
    """Write (or replace whole) `<catalog>/<table>/<group>/<name>.parquet`, through a
    temporary name as the catalog writer does; its path."""
    _, root = open_fs(catalog)
    folder = Path(root) / table / group
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.parquet"
    tmp = folder / f".tmp-{name}.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMAS[table]), tmp)
    os.replace(tmp, path)
    return str(path)


def verdict(key: bytes, group: str, rule: str | None, at: int = 1, detail: str = "") -> dict:
    return {"release_key": key, "group": group, "rule": rule, "detail": detail or None,
            "rules_version": "judge-1", "judged_at": at}  # fmt: skip


def health(key: bytes, group: str, state: str | None, at: int = 1, segments: int = 12,
           missing: int = 0) -> dict:  # fmt: skip
    return {"release_key": key, "group": group, "checked_at": at, "verdict": state,
            "segments": segments, "missing": missing, "posted_last": 1_700_000_000}  # fmt: skip


def merge(from_key: bytes, into_key: bytes, group: str, via: str, at: int = 1) -> dict:
    return {"from_key": from_key, "into_key": into_key, "group": group, "via": via,
            "par2_set": bytes(16) if via == "par2" else None, "merged_at": at,
            "written_range": 0}  # fmt: skip
