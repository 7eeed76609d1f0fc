"""A recent sample of headers to weigh a new rule against: how much of it would it match?

The newest partitions of each group: the kept files' subjects, posters and first
message-ids (`release_files`, one row a file) and the dropped lines kept in full
(`rule_samples`). A rule matching more than a set share of them is refused unless forced
(`store.MAX_SHARE`): an unescaped `[MP4SUX]` is a class of five letters, not a tag.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import Rule

NEWEST = 4  # partitions a group and table: the recent past, whatever the catalog's size
_COLUMNS = {
    "release_files": {"subject": "subject", "poster": "poster", "message_id": "seg_ids"},
    "rule_samples": {"subject": "subject", "poster": "poster", "message_id": "message_id"},
}


def recent_texts(catalog: str, field: str) -> list[str]:
    """The field's texts in the recent sample (a file's first message-id for a file)."""
    fs, root = open_fs(catalog)
    texts: list[str] = []
    for table, columns in _COLUMNS.items():
        by_group: dict[str, list[Any]] = {}
        for part in list_table(fs, root, table, stat=False):
            by_group.setdefault(part.path.rsplit("/", 2)[-2], []).append(part)  # its group folder
        for parts in by_group.values():
            for part in sorted(parts, key=lambda p: p.last)[-NEWEST:]:
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
