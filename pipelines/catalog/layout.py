"""Where catalog partitions live: `<catalog>/<table>/<group>/<first>-<last>.parquet`.

One file per table, group and range, written once and replaced whole when a range is
redone. Compaction writes `<catalog>/<table>/<group>/compact-<first>-<last>.parquet`
covering many ranges and removes the per-range files it replaced. Which of the files
found there are partitions: `partitions.py`.
"""

from __future__ import annotations

from pipelines.corpus.layout import span_name

COMPACT_PREFIX = "compact-"


def partition_path(catalog: str, table: str, group: str, first: int, last: int) -> str:
    return f"{catalog.rstrip('/')}/{table}/{group}/{span_name(first, last)}.parquet"


def compact_path(catalog: str, table: str, group: str, first: int, last: int) -> str:
    """A compact file covering the ranges of first..last."""
    name = f"{COMPACT_PREFIX}{span_name(first, last)}.parquet"
    return f"{catalog.rstrip('/')}/{table}/{group}/{name}"


def table_glob(catalog: str, table: str) -> str:
    """The glob DuckDB reads a table through (every group, every partition)."""
    return f"{catalog.rstrip('/')}/{table}/*/*.parquet"


def snapshot_path(catalog: str, group: str, first: int, last: int) -> str:
    """The carried window's state after a range (read by the group's next range)."""
    return f"{catalog.rstrip('/')}/_window/{group}/{span_name(first, last)}.snapshot"
