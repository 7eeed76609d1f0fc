"""The catalog's side of the poster watch and the build outcomes: what became of the
releases a watched poster put out, and per day what the candidates became.

Read on demand (an admin page, `status.json`), a few columns of the release tables, and
bounded by the days asked for: nothing is stored for them, so there is nothing to prune.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyarrow as pa

from pipelines.rules.counters import SECONDS_A_DAY, date_of, every_partition
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import BUILTIN_IDS, Rule

MAX_DAYS = 90  # the horizon of the build outcomes


def _keys(table: pa.Table | None, posters: set[str]) -> pa.Table | None:
    if table is None:
        return None
    mask = pa.compute.is_in(table.column("poster"), pa.array(sorted(posters), pa.string()))
    return table.filter(mask)


def release_outcomes(catalog: str, rule: Rule) -> list[dict[str, Any]]:
    """The releases of the posters the rule matches, by stage and reason."""
    matcher = RuleMatcher([rule.with_changes(state="on", group="")], "")
    cols = ["release_key", "poster", "finished", "merged_into"]
    releases = every_partition(catalog, "releases", cols)
    pending = every_partition(catalog, "pending_releases", ["release_key", "poster"])
    seen = set()
    for t in (releases, pending):
        if t is not None:
            seen |= set(t.column("poster").unique().to_pylist())
    posters = {p for p in seen if p is not None and matcher.match("poster", p)}
    out: list[dict[str, Any]] = []
    mine = _keys(releases, posters)
    keys: set[bytes] = set()
    if mine is not None:
        # the newest version of each release says where it stands
        rows = mine.filter(pa.compute.is_null(mine.column("merged_into"))).to_pylist()
        finished = {r["release_key"] for r in rows if r["finished"]}
        keys = {r["release_key"] for r in rows}
        out.append(_count("releases", "grouped", len(finished)))
        out.append(_count("releases", "provisional", len(keys - finished)))
    pend = _keys(pending, posters)
    pending_keys = set(pend.column("release_key").to_pylist()) if pend is not None else set()
    out.append(_count("pending", "pending", len(pending_keys)))
    everything = keys | pending_keys
    probes = every_partition(catalog, "release_probes", ["release_key", "outcome"])
    if probes is not None:
        named = {r["release_key"] for r in probes.to_pylist() if r["outcome"] == "named"}
        out.append(_count("article_pass", "named", len(named & everything)))
    verdicts = every_partition(catalog, "release_verdicts", ["release_key", "rule", "judged_at"])
    if verdicts is not None:
        newest: dict[bytes, tuple[int, str | None]] = {}
        for r in verdicts.to_pylist():
            key, verdict = r["release_key"], (r["judged_at"], r["rule"])
            if key in everything and verdict[0] > newest.get(key, (-1, None))[0]:
                newest[key] = verdict
        by_rule: dict[str, int] = defaultdict(int)
        for _, judged in newest.values():
            if judged:
                by_rule[judged] += 1
        out += [_count("judge", f"judged {v}", n) for v, n in sorted(by_rule.items())]
    merges = every_partition(catalog, "release_merges", ["from_key"])
    if merges is not None:
        merged = set(merges.column("from_key").to_pylist()) & everything
        out.append(_count("merges", "merged", len(merged)))
    return [o for o in out if o["releases"]]


def _count(stage: str, reason: str, n: int) -> dict[str, Any]:
    return {"stage": stage, "reason": reason, "headers": None, "releases": n}


def day_outcomes(catalog: str, days: int) -> list[dict[str, Any]]:
    days = max(1, min(days, MAX_DAYS))
    counts: dict[tuple[int, str], list[Any]] = {}

    def add(day: int, outcome: str, n: int, sample: str | None) -> None:
        row = counts.setdefault((day, outcome), [0, None])
        row[0] += n
        row[1] = row[1] or sample

    cols = ["release_key", "name", "posted_last", "finished", "complete", "merged_into"]
    releases = every_partition(catalog, "releases", cols)
    merges = every_partition(catalog, "release_merges", ["from_key"])
    merged = set(merges.column("from_key").to_pylist()) if merges is not None else set()
    verdicts = every_partition(catalog, "release_verdicts", ["release_key", "rule"])
    junk = {r["release_key"] for r in verdicts.to_pylist() if r["rule"]} if verdicts else set()
    for r in releases.to_pylist() if releases is not None else []:
        if not r["finished"] or r["merged_into"] is not None:
            continue
        day = r["posted_last"] // SECONDS_A_DAY
        key = r["release_key"]
        outcome = ("duplicate" if key in merged else "junk" if key in junk
                   else "built" if r["complete"] else "incomplete")  # fmt: skip
        add(day, outcome, 1, r["name"])
    pending = every_partition(catalog, "pending_releases", ["name", "posted_last"])
    for r in pending.to_pylist() if pending is not None else []:
        add(r["posted_last"] // SECONDS_A_DAY, "pending", 1, r["name"])
    hits = every_partition(catalog, "rule_hits", ["rule", "day", "dropped", "outcome"])
    samples = every_partition(catalog, "rule_samples", ["rule", "subject"])
    sample_of: dict[str, str] = {}
    for r in samples.to_pylist() if samples is not None else []:
        sample_of.setdefault(r["rule"], r["subject"])
    for r in hits.to_pylist() if hits is not None else []:
        if r["dropped"] and not r["outcome"] and r["rule"] not in BUILTIN_IDS:
            add(r["day"], "blacklisted", r["dropped"], sample_of.get(r["rule"]))
    ranges = every_partition(catalog, "ranges", ["bad_lines", "indexed_at"])
    for r in ranges.to_pylist() if ranges is not None else []:
        if r["bad_lines"]:
            add(r["indexed_at"] // SECONDS_A_DAY, "error", r["bad_lines"], None)
    newest = sorted({d for d, _ in counts}, reverse=True)[:days]
    return [
        {"day": date_of(d), "outcome": o, "count": c[0], "sample": c[1]}
        for (d, o), c in sorted(counts.items())
        if d in newest
    ]
