"""Partitions: one per (group, range) of the corpus, and one per group.

Only the partition definitions and the key format live here; the sensor that adds keys
is in sensors.py. A range key is `<group>|<first>-<last>` (`alt.binaries.x|4000000-5999999`):
one dynamic dimension rather than a group x range multi-partition, because each group has
its own ranges, and a cartesian product would show partitions that can never exist.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import dagster as dg

from pipelines.corpus.layout import RangeRef, parse_span, span_name

RANGES = dg.DynamicPartitionsDefinition(name="ranges")
GROUPS = dg.DynamicPartitionsDefinition(name="groups")

SEPARATOR = "|"


def range_key(ref: RangeRef) -> str:
    return f"{ref.group}{SEPARATOR}{span_name(ref.first, ref.last)}"


def parse_range_key(key: str) -> RangeRef:
    """`alt.binaries.x|4000000-5999999` -> RangeRef; a clear error for anything else."""
    group, sep, span = key.rpartition(SEPARATOR)
    bounds = parse_span(span)
    if not sep or not group or bounds is None:
        raise ValueError(f"not a range partition key: {key!r} (expected GROUP|FIRST-LAST)")
    return RangeRef(group, *bounds)


def ranges_by_group(keys: Iterable[str]) -> dict[str, list[RangeRef]]:
    """Range keys sorted into their groups, each group's ranges in article order."""
    groups: dict[str, list[RangeRef]] = defaultdict(list)
    for key in keys:
        ref = parse_range_key(key)
        groups[ref.group].append(ref)
    return {g: sorted(refs, key=lambda r: r.first) for g, refs in sorted(groups.items())}
