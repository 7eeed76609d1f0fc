"""Asset checks of the header pass: declared here, returned with each materialization.

- `finished_keys_unique`: every finished release key appears once in the group;
- `counts_add_up`: headers = segments kept + every rule's drops + bad lines, from the
  stored `ranges` row and `rule_counts` partition (not from memory);
- `parquet_readable`: every table's partition for the range reads back with the
  catalog's schema.

The checks read what was written; they never change the catalog.
"""

from __future__ import annotations

from collections import Counter

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.layout import partition_path
from pipelines.catalog.partitions import list_group
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import TABLES
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef

RELEASES = dg.AssetKey("releases")

CHECK_SPECS = [
    dg.AssetCheckSpec(
        "finished_keys_unique",
        asset=RELEASES,
        description="Every finished release key appears once in its group.",
    ),
    dg.AssetCheckSpec(
        "counts_add_up",
        asset=RELEASES,
        description="headers = segments kept + every rule's drops + bad lines, per range.",
    ),
    dg.AssetCheckSpec(
        "parquet_readable",
        asset=RELEASES,
        description="Every table's partition of the range reads back with the catalog schema.",
    ),
]


def _read(fs: object, path: str, columns: list[str] | None = None) -> pa.Table:
    return read_parquet(fs, path, columns)


def duplicate_finished_keys(catalog: str, group: str) -> list[str]:
    """Hex keys of finished releases written more than once in the group (all files but
    the merges': a merged version supersedes a finished one on purpose, docs/MERGES.md)."""
    fs, root = open_fs(catalog)
    seen: Counter[bytes] = Counter()
    for f in list_group(fs, root, "releases", group):
        if f.merge:
            continue
        rows = _read(fs, f.path, ["release_key", "finished"])
        finished = rows.filter(pc.equal(rows["finished"], True))
        seen.update(finished["release_key"].to_pylist())
    return sorted(k.hex() for k, n in seen.items() if n > 1)


def count_gap(catalog: str, ref: RangeRef) -> int:
    """headers - (segments kept + drops of every rule incl. bad lines), from stored rows."""
    fs, root = open_fs(catalog)
    ranges = _read(fs, partition_path(root, "ranges", ref.group, ref.first, ref.last))
    if ranges.num_rows != 1:
        raise ValueError(f"{ref.group}|{ref.name}: ranges partition has {ranges.num_rows} rows")
    row = ranges.to_pylist()[0]
    counts = _read(fs, partition_path(root, "rule_counts", ref.group, ref.first, ref.last))
    dropped = int(pc.sum(counts["count"]).as_py() or 0)
    return int(row["headers"]) - int(row["segments_kept"]) - dropped


def unreadable_tables(catalog: str, ref: RangeRef) -> dict[str, str]:
    """Table -> problem for every partition of the range that does not read back."""
    fs, root = open_fs(catalog)
    problems = {}
    for name, schema in TABLES.items():
        path = partition_path(root, name, ref.group, ref.first, ref.last)
        try:
            table = _read(fs, path)
        except Exception as exc:  # any failure to read is what this check reports
            problems[name] = f"{type(exc).__name__}: {exc}"
            continue
        if not table.schema.equals(schema):
            problems[name] = "schema differs from pipelines/catalog/schema.py"
    return problems


def check_results(catalog: str, refs: list[RangeRef]) -> list[dg.AssetCheckResult]:
    """The three checks over the ranges one run materialized."""
    dups = {g: duplicate_finished_keys(catalog, g) for g in sorted({r.group for r in refs})}
    gaps = {f"{r.group}|{r.name}": count_gap(catalog, r) for r in refs}
    unreadable = {f"{r.group}|{r.name}": unreadable_tables(catalog, r) for r in refs}
    bad_gaps = {k: v for k, v in gaps.items() if v}
    bad_files = {k: v for k, v in unreadable.items() if v}
    return [
        dg.AssetCheckResult(
            asset_key=RELEASES,
            check_name="finished_keys_unique",
            passed=not any(dups.values()),
            metadata={"duplicates": {g: d[:20] for g, d in dups.items() if d}},
        ),
        dg.AssetCheckResult(
            asset_key=RELEASES,
            check_name="counts_add_up",
            passed=not bad_gaps,
            metadata={"ranges_checked": len(gaps), "off_by": bad_gaps},
        ),
        dg.AssetCheckResult(
            asset_key=RELEASES,
            check_name="parquet_readable",
            passed=not bad_files,
            metadata={"ranges_checked": len(refs), "problems": bad_files},
        ),
    ]
