"""Partitions: one per (group, range) of the corpus, and one per group.

The partition definitions, the key format, and which of the corpus's ranges become
partitions (`registrable`, `new_partitions`); the corpus sensor and the capture runs add
them. A range key is `<group>|<first>-<last>` (`alt.binaries.x|4000000-5999999`): one
dynamic dimension rather than a group x range multi-partition, because each group has its
own ranges, and a cartesian product would show partitions that can never exist.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import dagster as dg

from assets.resources import CorpusResource
from pipelines.corpus.layout import RangeRef, parse_span, span_name
from pipelines.corpus.reader import RangeInfo
from pipelines.index.backbones import CorpusBackbones

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


def registrable(info: RangeInfo) -> bool:
    """Whether a stored range becomes a partition: once its range.json says complete
    (the one place to change for ranges indexed while they grow)."""
    return info.complete


def new_partitions(
    corpus: CorpusResource,
    known_ranges: set[str],
    known_groups: set[str],
    backbones: CorpusBackbones | None = None,
) -> tuple[list[str], list[str]]:
    """Range keys of registrable ranges and group names the instance does not have yet.

    A range already registered is not read again: one listing per group, and a manifest
    read only for the ranges not registered yet (a group's growing tail, new ones). A
    group on several backbones has its primary's ranges (docs/BACKBONES.md).
    """
    backbones = backbones or corpus.backbones()
    ranges, groups = [], []
    for group in backbones.groups():
        if group not in known_groups:
            groups.append(group)
        reader = corpus.group_reader(backbones, group)
        for ref in reader.range_refs(group):
            key = range_key(ref)
            if key not in known_ranges and registrable(reader.range_info(ref)):
                ranges.append(key)
    return ranges, groups


def foreign_partitions(
    corpus: CorpusResource, known_ranges: set[str], backbones: CorpusBackbones
) -> list[str]:
    """Range keys of a group on several backbones that are not its primary's ranges:
    registered while another backbone held the group alone (its numbers mean other
    articles there), they can never be indexed; the corpus sensor removes them. A corpus
    of one backbone has none (and its keys are not looked at)."""
    if len(backbones.order) < 2:
        return []
    foreign = []
    for group, refs in ranges_by_group(known_ranges).items():
        if len(backbones.holders(group)) > 1:
            primary = set(corpus.group_reader(backbones, group).range_refs(group))
            foreign += [range_key(ref) for ref in refs if ref not in primary]
    return foreign


def register_partitions(
    instance: dg.DagsterInstance, corpus: CorpusResource
) -> tuple[list[str], list[str]]:
    """Add the corpus's new range and group partitions; returns them (ranges, groups)."""
    known_ranges = set(instance.get_dynamic_partitions(RANGES.name or "ranges"))
    known_groups = set(instance.get_dynamic_partitions(GROUPS.name or "groups"))
    ranges, groups = new_partitions(corpus, known_ranges, known_groups)
    if ranges:
        instance.add_dynamic_partitions(RANGES.name or "ranges", ranges)
    if groups:
        instance.add_dynamic_partitions(GROUPS.name or "groups", groups)
    return ranges, groups
