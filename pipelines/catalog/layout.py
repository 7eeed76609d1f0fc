"""Where catalog partitions live: `<catalog>/<table>/<group>/<first>-<last>.parquet`.

One file per table, group and range, written once and replaced whole when a range is
redone. While a group's newest range still grows, the parts of it indexed so far are
`tail-<a>-<b>.parquet` beside them, removed once the range is indexed whole. Compaction
writes `<catalog>/<table>/<group>/compact-<first>-<last>.parquet` covering many ranges
and removes the per-range files it replaced. Which of the files
found there are partitions: `partitions.py`.
"""

from __future__ import annotations

from pipelines.corpus.layout import span_name

COMPACT_PREFIX = "compact-"
# the rows of a growing range's stored part, indexed before the range is whole
# (`pipelines.index.tail`); removed when the range is indexed whole
TAIL_PREFIX = "tail-"
# the article pass's versions of a range's releases (`pipelines.probe.namer`): pending
# releases it named; removed when the range is indexed again, never compacted
PROBE_PREFIX = "probe-"
# the merges' versions of releases and their absorbed file rows (`pipelines.merge`), named
# for the article span their releases cover; removed when a range of it is indexed again,
# never compacted
MERGE_PREFIX = "merge-"
# imported NZBs' releases and files (`pipelines.nzbimport`), named for the numbers the
# imports took (from IMPORT_BASE up, past any group's article numbers); never compacted,
# never removed by the header pass
IMPORT_PREFIX = "import-"
IMPORT_BASE = 1 << 50
# the PreDB's versions of releases a pre named (`pipelines.predb.versions`), named for the
# article span their releases cover; never compacted, never removed
PREDB_PREFIX = "predb-"


def partition_path(
    catalog: str,
    table: str,
    group: str,
    first: int,
    last: int,
    tail: bool = False,
    probe: bool = False,
    merge: bool = False,
    imported: bool = False,
    predb: bool = False,
) -> str:
    """A range's partition, or (tail) the partition of a growing range's part first..last,
    or (probe) the article pass's partition for the range first..last, or (merge) the
    merges' partition for the releases of first..last."""
    prefix = TAIL_PREFIX if tail else PROBE_PREFIX if probe else MERGE_PREFIX if merge else ""
    prefix = IMPORT_PREFIX if imported else prefix
    prefix = PREDB_PREFIX if predb else prefix
    name = f"{prefix}{span_name(first, last)}.parquet"
    return f"{catalog.rstrip('/')}/{table}/{group}/{name}"


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


def tail_folder(catalog: str, group: str, first: int, last: int) -> str:
    """Where a growing range's tail keeps its log and its windows (`pipelines.index.tail`)."""
    return f"{catalog.rstrip('/')}/_tail/{group}/{span_name(first, last)}"
