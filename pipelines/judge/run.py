"""A judge run: the releases whose facts changed since the last run, judged and stored.

Which releases a run judges (the others keep their verdicts):
- every live one, with `everything` (`--all`), on the first run, or when the rule set's
  version changed since the last run;
- else those held by the input files that are new or were rewritten since the last run
  (new ranges, probe, health and merge outputs: the listing and its modification times,
  against the place the last run kept), the releases that share a content file with them
  (a repeated family's count moved), those that crossed the settling line since the last
  run (time alone makes them unusable), and, when an input file was removed or rewritten,
  every release with a verdict (what it rested on may be gone).

A release with a verdict that is no longer live (a merge or an album took it) has its
verdict taken back.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow.compute as pc

from pipelines.catalog.changes import Stamps
from pipelines.judge import facts as catalog_facts
from pipelines.judge import rules
from pipelines.judge.store import (
    Place,
    load_place,
    newest_verdicts,
    save_place,
    verdict_rows,
    write_verdicts,
)

PROGRESS_EVERY = 10_000


@dataclass
class JudgeSummary:
    rules_version: str = rules.RULES_VERSION
    full: bool = False
    live: int = 0  # live releases in the catalog
    judged: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)  # rows written this run, by rule
    taken_back: int = 0
    current: Counter[str] = field(default_factory=Counter)  # verdicts standing after the run
    files: int = 0  # partitions written
    judged_at: int = 0
    settled_line: int = 0
    damaged: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def text(self) -> str:
        new = ", ".join(f"{r} {self.verdicts[r]:,}" for r in rules.ORDER if self.verdicts[r])
        now = ", ".join(f"{r} {self.current[r]:,}" for r in rules.ORDER if self.current[r])
        lines = [
            f"judge: {self.judged:,} of {self.live:,} releases judged"
            f"{' (all)' if self.full else ''} under rules {self.rules_version}",
            f"  new verdicts: {new or 'none'}; taken back: {self.taken_back:,}",
            f"  standing: {now or 'none'}",
            f"  {self.seconds:.2f} s, {self.cpu_seconds:.2f} CPU s",
        ]
        lines += [f"  damaged, skipped: {d}" for d in self.damaged]
        return "\n".join(lines)


def judge_catalog(
    catalog: str,
    everything: bool = False,
    now: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> JudgeSummary:
    """Judge what changed (or, `everything`, every live release) and store the verdicts
    that differ from the current ones. `now`: the wall clock (epoch seconds)."""
    started, cpu = time.perf_counter(), time.process_time()
    wall = int(time.time()) if now is None else int(now)
    memos = Stamps(catalog, "judge")
    seen = memos.check("catalog", catalog_facts.input_folders(catalog), extra=rules.RULES_VERSION)
    if seen.same and not everything:
        idle = _idle(seen.memo, wall)
        if idle is not None:  # nothing the judge reads moved, and no release settled since
            idle.seconds = time.perf_counter() - started
            idle.cpu_seconds = time.process_time() - cpu
            return idle
    place = load_place(catalog)
    inputs = catalog_facts.listing(catalog)
    # the place keeps paths within the catalog: a catalog moved or copied whole (its files'
    # times kept) is the same catalog
    within = catalog_facts.relative(catalog, inputs)
    full = everything or not place.inputs or place.rules_version != rules.RULES_VERSION
    changed = {p for p, m in inputs.items() if place.inputs.get(within[p]) != m}
    path_of = {r: p for p, r in within.items()}
    # a file seen last run is gone or rewritten
    shaken = any(r not in path_of or path_of[r] in changed for r in place.inputs)
    c = catalog_facts.load(catalog, inputs, changed)

    newest = newest_verdicts(verdict_rows(catalog))
    current = {
        k: (rule, version)
        for k, rule, version in zip(
            newest["release_key"].to_pylist(),
            newest["rule"].to_pylist(),
            newest["rules_version"].to_pylist(),
            strict=True,
        )
        if rule is not None
    }
    groups = dict(zip(newest["release_key"].to_pylist(), newest["group"].to_pylist(), strict=True))

    # the settling line: a day before now, or before the catalog's newest posting when that
    # is older (a catalog replayed from an old corpus)
    newest_post = c.newest_posting()
    line = min(wall, newest_post if newest_post is not None else wall) - rules.DAY
    if full:
        todo = set(c.live.keys)
    else:
        todo = c.live.having(c.touched) | c.families(c.touched)
        last_line = place.settled_line if place.settled_line is not None else line
        if line > last_line:
            todo |= set(c.posted_within(last_line, line))
        if shaken:
            todo |= c.live.having(current)
    standing_live = c.live.having(current)
    gone = {k for k in current if k not in standing_live and (full or shaken or k in c.touched)}

    judged_at = max(wall, place.judged_at + 1)
    names = catalog_facts.file_names(catalog, c, todo, every=full)
    s = JudgeSummary(full=full, live=len(c.live), judged_at=judged_at, settled_line=line)
    # a release nothing but its counters is known of matches no rule: only its standing
    # verdict, if any, is taken back
    ordered = sorted(todo)
    told = [
        k
        for k, plain in zip(ordered, c.plain_many(ordered), strict=True)
        if k in names or not plain
    ]
    c.make(told)
    rows = []
    for key in sorted(k for k in todo.difference(told) if k in current):
        rows.append(_row(key, c.group_of(key), None, "no rule matches", judged_at))
        s.taken_back += 1
    if progress is not None and len(todo) > len(told):
        progress(len(todo) - len(told))
    for i, key in enumerate(told):
        found = rules.judge(c.facts(key, names.get(key, [])), line)
        old = current.get(key)
        if found is None:
            if old is not None:
                rows.append(_row(key, c.group_of(key), None, "no rule matches", judged_at))
                s.taken_back += 1
        elif old != (found[0], rules.RULES_VERSION):
            rows.append(_row(key, c.group_of(key), found[0], found[1], judged_at))
            s.verdicts[found[0]] += 1
        if progress is not None and (i + 1) % PROGRESS_EVERY == 0:
            progress(PROGRESS_EVERY)
    if progress is not None and len(told) % PROGRESS_EVERY:
        progress(len(told) % PROGRESS_EVERY)
    for key in sorted(gone):
        rows.append(_row(key, groups.get(key) or "", None, "no longer in the catalog", judged_at))
        s.taken_back += 1
    s.judged = len(todo)
    s.files = write_verdicts(catalog, judged_at, rows)
    save_place(
        catalog,
        Place(
            rules.RULES_VERSION,
            judged_at if rows else place.judged_at,
            line,
            {within[p]: m for p, m in inputs.items()},
        ),
    )
    for r in rows:
        if r["rule"] is None:
            current.pop(r["release_key"], None)
        else:
            current[r["release_key"]] = (r["rule"], r["rules_version"])
    s.current = Counter(rule for rule, _ in current.values())
    s.damaged = c.damaged
    if not c.damaged:
        memos.record(seen, _memo(s, c, newest_post, line))
        memos.save()
    s.seconds = time.perf_counter() - started
    s.cpu_seconds = time.process_time() - cpu
    return s


def _memo(
    s: JudgeSummary, c: catalog_facts.CatalogFacts, newest: int | None, line: int
) -> dict[str, Any]:
    """What an idle run says again: the catalog's counts, its newest posting, and the
    next last-post time past the settling line (the next release time alone will move)."""
    posted = c.live.table["posted_last"]
    later = pc.min(pc.filter(posted, pc.greater(pc.fill_null(posted, 0), line))).as_py()
    return {
        "live": s.live, "current": dict(s.current), "newest": newest,
        "settles": None if later is None else int(later), "judged_at": s.judged_at,
    }  # fmt: skip


def _idle(memo: dict[str, Any], wall: int) -> JudgeSummary | None:
    """The summary of a run with nothing to judge, if the settling line has not reached
    the next release since the memo's run (None: judge)."""
    newest = memo.get("newest")
    line = min(wall, newest if newest is not None else wall) - rules.DAY
    settles = memo.get("settles")
    if settles is not None and line >= settles:
        return None
    s = JudgeSummary(live=int(memo["live"]), judged_at=int(memo["judged_at"]), settled_line=line)
    s.current = Counter({str(k): int(v) for k, v in memo["current"].items()})
    return s


def _row(key: bytes, group: str, rule: str | None, detail: str, at: int) -> dict[str, object]:
    return {
        "release_key": key,
        "group": group,
        "rule": rule,
        "detail": detail,
        "rules_version": rules.RULES_VERSION,
        "judged_at": at,
    }


def verdict_counts(catalog: str) -> dict[str, int]:
    """Standing verdicts per rule (the status page's and the asset's counts)."""
    from pipelines.judge.store import current_verdicts

    counts = Counter(current_verdicts(catalog)["rule"].to_pylist())
    return {r: counts.get(r, 0) for r in rules.ORDER}
