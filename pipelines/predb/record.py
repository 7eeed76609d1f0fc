"""What a scan cycle writes besides the queue: the renamed versions and their links, the
steps' outcomes, and the counts the pages show (`_predb/summary.json`).

Order matters for a cycle killed midway (docs/PREDB.md): the versions before their
links (a version without its link is found next cycle and linked, not written again:
`versions.renamed_rows`), the links before the outcomes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa

from pipelines.catalog.schema import PRE_LINKS, PRE_OUTCOMES
from pipelines.predb import lookup as L
from pipelines.predb import queue as Q
from pipelines.predb import schedule as S
from pipelines.predb.match import Candidate
from pipelines.predb.store import get_json, put_json, write_batch
from pipelines.predb.versions import renamed_rows, write_versions

SUMMARY = "summary.json"


def write_links(
    catalog: str, links: list[Candidate], lookup: L.Lookup, linked: dict[bytes, bytes], now: int
) -> int:
    """Each linked release's renamed version (one file a group), then the links; `linked`
    (release key -> pre key) learns them. How many releases carry the title now."""
    if not links:
        return 0
    by_group: dict[str, list[tuple[Candidate, str]]] = {}
    sections: dict[str, str] = {}
    for c in links:
        title = lookup.title(c.row)
        by_group.setdefault(c.group, []).append((c, title))
        sections[title] = lookup.value(c.row, "category") or ""
    written: dict[bytes, int] = {}
    for group, items in sorted(by_group.items()):
        versions, done = renamed_rows(catalog, group, items, sections)
        write_versions(catalog, group, versions)
        written.update({r["release_key"]: int(r["written_range"]) for r in versions})
        written.update(done)
    recs = []
    for c in links:
        pre_key = lookup.value(c.row, "pre_key")
        recs.append({"pre_key": pre_key, "title": lookup.title(c.row), "release_key": c.release_key,
                     "group": c.group, "method": c.method, "linked_at": now,
                     "written_range": written.get(c.release_key)})  # fmt: skip
        linked[c.release_key] = pre_key
    write_batch(catalog, "pre_links", pa.Table.from_pylist(recs, schema=PRE_LINKS))
    return len(written)


def write_outcomes(
    catalog: str, outcomes: list[tuple[int, int, str, int]], lookup: L.Lookup, now: int
) -> None:
    """The steps' outcomes (row, plan, outcome, attempt) as one batch."""
    if not outcomes:
        return
    rows = np.array([o[0] for o in outcomes], np.int64)
    table = pa.table(
        {
            "pre_key": lookup.column("pre_key", rows),
            "priority": pa.array([S.PRIORITY[o[1]] for o in outcomes], pa.int8()),
            "outcome": pa.array([o[2] for o in outcomes], pa.string()),
            "attempt": pa.array([o[3] for o in outcomes], pa.int16()),
            "at": pa.array([now] * len(outcomes), pa.int64()),
        },
        schema=PRE_OUTCOMES,
    )
    write_batch(catalog, "pre_outcomes", table)


def summarise(
    catalog: str, queue: Q.Queue, outcomes: Counter[str], methods: Counter[str], now: int
) -> None:
    """Counts per state and method for the pages: the last summary plus this cycle."""
    doc: dict[str, Any] = get_json(catalog, SUMMARY) or {"terminal": {}, "methods": {}}
    for k, v in outcomes.items():
        if k in S.TERMINAL:
            doc["terminal"][k] = doc["terminal"].get(k, 0) + v
    for k, v in methods.items():
        doc["methods"][k] = doc["methods"].get(k, 0) + v
    st, n = np.unique(queue["status"], return_counts=True)
    doc["waiting"] = {S.STATUS_NAMES[int(k)]: int(v) for k, v in zip(st, n, strict=True)}
    prio: Counter[str] = Counter()
    for k, v in zip(*np.unique(queue["plan"], return_counts=True), strict=True):
        prio[f"P{S.PRIORITY[int(k)]}"] += int(v)
    doc["waiting_by_priority"] = dict(prio)
    doc["scanned_at"] = now
    put_json(catalog, SUMMARY, doc)
