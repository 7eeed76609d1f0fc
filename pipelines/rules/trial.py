"""`rules try`: what a draft change to the rule set would do, without writing the catalog.

The draft runs as `apply` would run it (`pipelines.rules.current.drafted`): the scan finds
where its changed rules fire among the last N stored ranges of each group, the range
scheduler names the ranges it makes stale, and each of them (and every range after it,
whose window then changes) is indexed again into a temporary catalog, from the window
the stored catalog holds. The two catalogs' rows for those ranges are then compared: the
releases the change removes, adds or changes, what each rule matched and dropped, and
sample subjects of what it would drop. Applying the same change redoes the same ranges
the same way, so the prediction is what happens (tests/test_rules_apply.py).
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from pipelines.catalog.compact import RANGE_COLUMN
from pipelines.catalog.partitions import list_group
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader
from pipelines.index.range_indexer import index_range
from pipelines.index.rules import Rules
from pipelines.index.schedule import GroupSchedule, start_window
from pipelines.rules.apply import unscanned
from pipelines.rules.current import Draft, catalog_rules, drafted
from pipelines.rules.fires import scan_fires
from pipelines.rules.model import Rule
from pipelines.rules.store import load_rules

RANGE_COLUMNS = RANGE_COLUMN | {"rule_hits": "range_first"}
# what tells one version of a release from another (not when it was written or under
# which rules)
COMPARED = ("name", "poster", "files", "file_total", "segments", "bytes", "complete", "finished")
SAMPLES = 10  # sample subjects per rule


@dataclass
class Trial:
    ranges: list[tuple[str, int, int, str]] = field(default_factory=list)  # group, span, why
    # per group: headers kept as segments, and dropped by any rule, before and after
    groups: dict[str, dict[str, int]] = field(default_factory=dict)
    # per rule id: what it matched and dropped in those ranges, before and after
    rules: dict[str, dict[str, int]] = field(default_factory=dict)
    samples: dict[str, list[str]] = field(default_factory=dict)  # rule id -> subjects
    removed: list[dict[str, Any]] = field(default_factory=list)  # releases gone
    added: list[dict[str, Any]] = field(default_factory=list)
    changed: list[dict[str, Any]] = field(default_factory=list)  # {key, name, before, after}
    pending_removed: int = 0
    pending_added: int = 0


def changed_rules(current: list[Rule], draft: list[Rule]) -> list[Rule]:
    """The draft's rules that are new or match or act otherwise than the current ones."""
    now = {r.id: r.matching() for r in current}
    return [r for r in draft if now.get(r.id) != r.matching()]


def try_rules(
    corpus: str, catalog: str, base: Rules, draft: list[Rule], ranges: int | None = None
) -> Trial:
    """Run the draft operator rule list (in order) over the last `ranges` stored ranges
    of each group (all: None) and say what it would change."""
    current = load_rules(catalog).operator
    records: dict[str, dict[str, Any]] = {}
    # what changed, and what the catalog's ranges never ran or were scanned with
    changed = changed_rules(current, draft)
    changed += [r for r in unscanned(corpus, catalog, draft) if r not in changed]
    scan_fires(corpus, catalog, catalog_rules(catalog, base), changed, ranges, records=records)
    trial = Trial()
    reader = CorpusReader(corpus)
    with drafted(Draft(tuple(draft), records)), tempfile.TemporaryDirectory() as tmp:
        rules = catalog_rules(catalog, base)
        priority = rules.priority(reader.groups())
        for group in priority:
            infos = [i for i in reader.ranges(group) if i.complete]
            if not infos:
                continue
            shown = infos[-ranges:] if ranges else infos
            due = GroupSchedule(catalog, [i.ref for i in shown], base).due()
            if not due:
                continue
            start = [i.ref for i in infos].index(due[0].ref)
            before = infos[start - 1].ref if start else None
            window = start_window(catalog, due[0].ref, before)
            why = {d.ref: d.why for d in due}
            for info in infos[start:]:
                _, window = index_range(reader, info, tmp, rules, priority, window)
                ref = info.ref
                trial.ranges.append(
                    (group, ref.first, ref.last, why.get(ref, "after a redone range"))
                )
                _compare(trial, catalog, tmp, ref)
    return trial


def range_rows(catalog: str, table: str, ref: RangeRef) -> list[dict[str, Any]]:
    """The rows the range wrote to the table (its own partition or a compacted one)."""
    fs, root = open_fs(catalog)
    column = RANGE_COLUMNS[table]
    rows: list[dict[str, Any]] = []
    for part in list_group(fs, root, table, ref.group, stat=False):
        if part.derived or not part.first <= ref.first <= part.last:
            continue
        try:
            t = read_parquet(fs, part.path)
        except (OSError, pa.ArrowException):
            continue
        rows += [r for r in t.to_pylist() if r[column] == ref.first]
    return rows


def _compare(trial: Trial, catalog: str, tmp: str, ref: RangeRef) -> None:
    old = {r["release_key"]: r for r in range_rows(catalog, "releases", ref)}
    new = {r["release_key"]: r for r in range_rows(tmp, "releases", ref)}
    for key in sorted(old.keys() - new.keys()):
        trial.removed.append(_release(old[key]))
    for key in sorted(new.keys() - old.keys()):
        trial.added.append(_release(new[key]))
    for key in sorted(old.keys() & new.keys()):
        a, b = ({k: r[k] for k in COMPARED} for r in (old[key], new[key]))
        if a != b:
            trial.changed.append(_release(new[key]) | {"before": a, "after": b})
    old_p = {r["release_key"] for r in range_rows(catalog, "pending_releases", ref)}
    new_p = {r["release_key"] for r in range_rows(tmp, "pending_releases", ref)}
    trial.pending_removed += len(old_p - new_p)
    trial.pending_added += len(new_p - old_p)
    group = trial.groups.setdefault(ref.group, defaultdict(int))
    for side, where in (("before", catalog), ("after", tmp)):
        for row in range_rows(where, "rule_counts", ref):
            group[f"dropped_{side}"] += row["count"]
        for row in range_rows(where, "rule_hits", ref):
            counts = trial.rules.setdefault(row["rule"], defaultdict(int))
            counts[f"matched_{side}"] += row["headers"]
            counts[f"dropped_{side}"] += row["dropped"]
    for row in range_rows(tmp, "rule_samples", ref):
        subjects = trial.samples.setdefault(row["rule"], [])
        if len(subjects) < SAMPLES:
            subjects.append(row["subject"])


def _release(row: dict[str, Any]) -> dict[str, Any]:
    key = row["release_key"]
    return {
        "key": key.hex() if isinstance(key, bytes) else str(key),
        "name": row["name"],
        "group": row["group"],
        "poster": row["poster"],
        "written_range": row["written_range"],
    }
