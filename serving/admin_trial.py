"""A draft rule tried from the admin page: nothing is written.

With the corpus the catalog is indexed from (`corpus`, `serve --corpus`; `live` passes
its own), it is `usenet-indexer rules try` itself (`pipelines.rules.trial`): the last
`try_ranges` stored ranges of each group where the draft fires are indexed again into a
temporary catalog and compared, so the page shows exactly what applying it changes.

Without it, what the catalog stores is all the page can see: the newest partitions of
each group (as the store's share check weighs a rule, `pipelines.rules.sample.NEWEST`):
the kept files of `release_files` (a drop rule would drop them, taking their releases
with them or changing them) and the dropped lines kept in `rule_samples` (a keep rule
would keep them); the page says it is this estimate.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa

from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.index.rules import Rules
from pipelines.rules.draft import draft_of
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import Rule
from pipelines.rules.sample import newest_partitions
from pipelines.rules.store import load_rules
from pipelines.rules.trial import try_rules
from pipelines.rules.validate import RuleRefused, check_rule
from serving.state import Catalog

SAMPLES = 20  # subjects shown of each kind
_TEXT = {"subject": "subject", "poster": "poster"}  # message_id: a file's first seg_id


SHOWN = 50  # releases listed per kind


def try_draft(catalog: Catalog, draft: dict[str, str], rule_id: str | None = None
              ) -> dict[str, Any]:  # fmt: skip
    """What the draft (a new rule, or `rule_id` changed) would do: `rules try`'s answer
    with a corpus, else the stored estimate; {error} when it is refused as it stands."""
    if catalog.settings.corpus:
        return _exact(catalog, draft, rule_id)
    return _stored(catalog, draft)


def _exact(catalog: Catalog, draft: dict[str, str], rule_id: str | None) -> dict[str, Any]:
    """`rules try` over the corpus (slow: ranges are indexed again; run off the loop)."""
    settings = catalog.settings
    assert settings.corpus is not None
    changes: dict[str, Any] = {"field": draft["field"], "literal": draft["literal"] == "1",
                               "group": draft["group"], "action": draft["action"],
                               "state": draft["state"], "note": draft["note"]}  # fmt: skip
    try:
        if rule_id is not None:
            rules = draft_of(settings.catalog, rule_id, {**changes, "pattern": draft["pattern"]})
        else:  # a new rule at the end (not `draft_of`'s way: a pattern may look like an id)
            new = Rule(id="draft", pattern=draft["pattern"], **changes)
            check_rule(new)
            rules = [*load_rules(settings.catalog).operator, new]
        trial = try_rules(settings.corpus, settings.catalog, Rules.load(settings.rules_file),
                          rules, settings.try_ranges)  # fmt: skip
    except (RuleRefused, TypeError, ValueError) as exc:
        return {"error": str(exc)}
    return {"exact": True, "ranges": trial.ranges, "groups": trial.groups,
            "rules": trial.rules, "samples": trial.samples,
            "removed": trial.removed[:SHOWN], "added": trial.added[:SHOWN],
            "changed": trial.changed[:SHOWN],
            "counts": {"removed": len(trial.removed), "added": len(trial.added),
                       "changed": len(trial.changed), "pending_removed": trial.pending_removed,
                       "pending_added": trial.pending_added}}  # fmt: skip


def _stored(catalog: Catalog, draft: dict[str, str]) -> dict[str, Any]:
    """{matched, seen, groups: {group: files}, releases, samples, rescued, rescued_samples}
    from the newest stored partitions."""
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
        for group, parts in newest_partitions(fs, root, table).items():
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
