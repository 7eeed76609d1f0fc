"""A recent sample of headers to weigh a new rule against: how much of it would it match?

The newest partitions of each group: the kept files' subjects, posters and first
message-ids (`release_files`, one row a file) and the dropped lines kept in full
(`rule_samples`). A rule matching more than a set share of them is refused unless forced
(`store.MAX_SHARE`): an unescaped `[MP4SUX]` is a class of five letters, not a tag.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from pipelines.catalog.partitions import Partition, list_table
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import Rule

NEWEST = 4  # partitions a group and table: the recent past, whatever the catalog's size
_COLUMNS = {
    "release_files": {"subject": "subject", "poster": "poster", "message_id": "seg_ids"},
    "rule_samples": {"subject": "subject", "poster": "poster", "message_id": "message_id"},
}


def newest_partitions(fs: Any, root: str, table: str) -> dict[str, list[Partition]]:
    """Per group, the table's `NEWEST` newest partitions: the recent sample a rule is
    weighed on (here, and on the admin page's estimate)."""
    by_group: dict[str, list[Partition]] = {}
    for part in list_table(fs, root, table, stat=False):
        group = part.path.rstrip("/").rsplit("/", 2)[-2]  # <table>/<group>/<first>-<last>
        by_group.setdefault(group, []).append(part)
    return {g: sorted(p, key=lambda x: x.last)[-NEWEST:] for g, p in by_group.items()}


def recent_texts(catalog: str, field: str) -> list[str]:
    """The field's texts in the recent sample (a file's first message-id for a file)."""
    fs, root = open_fs(catalog)
    texts: list[str] = []
    for table, columns in _COLUMNS.items():
        for parts in newest_partitions(fs, root, table).values():
            for part in parts:
                try:
                    column = read_parquet(fs, part.path, [columns[field]]).column(0)
                except (OSError, pa.ArrowException, KeyError):
                    continue  # an unreadable partition weighs nothing
                texts += [_first(v) for v in column.to_pylist()]
    return texts


def share_matched(catalog: str, rule: Rule) -> tuple[float, int]:
    """(share of the recent sample the rule matches, the sample's size)."""
    texts = recent_texts(catalog, rule.field)
    if not texts:
        return 0.0, 0
    matcher = RuleMatcher([rule.with_changes(state="on", group="")], "")
    hits = sum(1 for t in texts if matcher.match(rule.field, t))
    return hits / len(texts), len(texts)


def _first(value: Any) -> str:
    if isinstance(value, list):
        return str(value[0]) if value else ""
    return "" if value is None else str(value)
