"""A draft rule tried from the admin page, on what the catalog stores: nothing is written.

What the page can see without the corpus: the newest partitions of each group (as the
store's share check weighs a rule, `pipelines.rules.sample.NEWEST`): the kept files of
`release_files` (a drop rule would drop them, taking their releases with them or
changing them) and the dropped lines kept in `rule_samples` (a keep rule would keep
them). `usenet-indexer rules try` runs the same draft over the stored ranges' headers
in the corpus, exactly (docs/RULES.md).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa

from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import Rule
from pipelines.rules.sample import NEWEST
from pipelines.rules.validate import RuleRefused, check_rule
from serving.state import Catalog

SAMPLES = 20  # subjects shown of each kind
_TEXT = {"subject": "subject", "poster": "poster"}  # message_id: a file's first seg_id


def try_draft(catalog: Catalog, draft: dict[str, str]) -> dict[str, Any]:
    """{matched, seen, groups: {group: files}, releases, samples, rescued, rescued_samples}
    or {error} when the rule is refused as it stands."""
    try:
        rule = Rule(id="draft", field=draft["field"], pattern=draft["pattern"],
                    literal=draft["literal"] == "1", group=draft["group"],
                    action=draft["action"], state="on")  # fmt: skip
        check_rule(rule)
    except (RuleRefused, TypeError, ValueError) as exc:
        return {"error": str(exc)}
    fs, root = open_fs(catalog.settings.catalog)
    out: dict[str, Any] = {"matched": 0, "seen": 0, "groups": Counter(), "samples": [],
                           "rescued": 0, "rescued_samples": [], "action": rule.action}  # fmt: skip
    releases: set[bytes] = set()
    for table in ("release_files", "rule_samples"):
        for group, parts in _newest(fs, root, table).items():
            matcher = RuleMatcher([rule], group)
            if not matcher.rules:
                continue
            for part in parts:
                rows = _rows(fs, part.path, table, rule.field)
                for text, subject, key in rows:
                    out["seen"] += 1
                    if not matcher.match(rule.field, text):
                        continue
                    if table == "release_files":
                        out["matched"] += 1
                        out["groups"][group] += 1
                        releases.add(key)
                        if len(out["samples"]) < SAMPLES:
                            out["samples"].append(subject)
                    else:
                        out["rescued"] += 1
                        if len(out["rescued_samples"]) < SAMPLES:
                            out["rescued_samples"].append(subject)
    out["releases"] = len(releases)
    out["groups"] = dict(out["groups"].most_common())
    return out


def _newest(fs: Any, root: str, table: str) -> dict[str, list[Any]]:
    by_group: dict[str, list[Any]] = {}
    for part in list_table(fs, root, table, stat=False):
        group = part.path.rstrip("/").rsplit("/", 2)[-2]  # <table>/<group>/<first>-<last>
        by_group.setdefault(group, []).append(part)
    return {g: sorted(p, key=lambda x: x.last)[-NEWEST:] for g, p in by_group.items()}


def _rows(fs: Any, path: str, table: str, field: str) -> list[tuple[str, str, bytes]]:
    """(the field's text, the subject, the release key or b"") of each row."""
    kept = table == "release_files"
    column = _TEXT.get(field, "seg_ids" if kept else "message_id")
    columns = list(dict.fromkeys([column, "subject", *(["release_key"] if kept else [])]))
    try:
        t = read_parquet(fs, path, columns)
    except (OSError, pa.ArrowException, KeyError):
        return []  # an unreadable partition weighs nothing
    texts = t.column(column).to_pylist()
    if column == "seg_ids":
        texts = [v[0] if v else "" for v in texts]
    subjects = t.column("subject").to_pylist()
    keys = t.column("release_key").to_pylist() if kept else [b""] * len(texts)
    return [(x or "", s or "", k) for x, s, k in zip(texts, subjects, keys, strict=True)]
