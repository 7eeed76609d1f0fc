"""The rows of `rule_counts`, `rule_samples` and `rule_hits`: what each rule dropped in a
range, the lines it dropped that were kept in full (`pipelines.index.parse.Drops`), and
what each operator rule matched per day."""

from __future__ import annotations

import pyarrow as pa

from pipelines.catalog import schema
from pipelines.index.parse import Drops


def rule_counts(group: str, first: int, last: int, version: str, drops: Drops) -> pa.Table:
    rows = [
        {
            "group": group,
            "range_first": first,
            "range_last": last,
            "rule": rule,
            "detail": detail,
            "count": n,
            "rules_version": version,
        }
        for (rule, detail), n in sorted(drops.counts.items())
    ]
    return pa.Table.from_pylist(rows, schema.RULE_COUNTS)


def rule_samples(group: str, first: int, drops: Drops) -> pa.Table:
    n = drops.sampled()
    columns = {"group": [group] * n, "range_first": [first] * n, **drops.samples}
    return pa.table(
        {f.name: pa.array(columns[f.name], f.type) for f in schema.RULE_SAMPLES},
        schema=schema.RULE_SAMPLES,
    )


def rule_hits(group: str, first: int, last: int, version: str, drops: Drops) -> pa.Table:
    names = ("rule", "day", "headers", "bytes", "releases", "dropped", "outcome")
    rows = [dict(zip(names, row, strict=True)) for row in drops.hits.rows()]
    fixed = {"group": group, "range_first": first, "range_last": last, "rules_version": version}
    return pa.Table.from_pylist([fixed | r for r in rows], schema.RULE_HITS)
