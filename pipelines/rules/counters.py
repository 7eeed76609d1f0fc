"""What the rules did, for the operator: per rule, per watched poster, per day's builds.

Read from the catalog's `rule_hits` (every rule that matched a header, per range and
day) and `rule_counts` (the built-ins' drops per range). Both are written with their
range, write-once, and replaced whole when the range is redone: a count is in the
catalog once, whatever was killed or restarted, so the sums are exact. Rule counters are
never pruned; they go back as far as the catalog does.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

import pyarrow as pa

from pipelines.catalog.kept import per_file
from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.rules.model import Rule

DAYS_SHOWN = 30  # per-day counts a rule carries (its sparkline)
DRIFT_DAYS = 7  # drift: the newest day against the mean of the days before it
SECONDS_A_DAY = 86_400


# the rule tables, small (a row per range, rule, day and outcome), each file kept in this
# process while it stays as it is: a monitor polling status.json reads only new ranges'
KEPT_TABLES = ("rule_hits", "rule_counts", "rule_samples", "ranges")


def every_partition(catalog: str, table: str, columns: list[str] | None = None) -> pa.Table | None:
    """Every partition of a catalog table (these columns), None when it has none. Read
    whole: the release tables only on an admin page's demand (docs/RULES.md)."""
    fs, root = open_fs(catalog)
    parts = []
    for part in list_table(fs, root, table, stat=False):

        def read(path: str = part.path) -> pa.Table:
            return read_parquet(fs, path, columns)

        try:
            if table in KEPT_TABLES:
                parts.append(per_file(fs, part.path, f"rules:{table}:{columns}", read))
            else:
                parts.append(read())
        except (OSError, pa.ArrowException):
            continue
    return pa.concat_tables(parts) if parts else None


def rule_counters(catalog: str, rules: list[Rule]) -> list[dict[str, Any]]:
    """Every rule in evaluation order, as a dict:

    id, kind, field, pattern, literal, group, action, state, note, created, builtin
    (the rule); position (0-based, in the whole set); headers, bytes, releases (lifetime
    matches), dropped (lifetime headers it dropped, deciding first); share (its part of
    every header any rule dropped, 0..1); days (the newest `DAYS_SHOWN` days with hits,
    oldest first: {day: "YYYY-MM-DD", headers, bytes, releases, dropped}); today (the
    newest day's headers), drift (today / the mean of the `DRIFT_DAYS` days before it,
    None without them); last_hit ("YYYY-MM-DD" or None).
    Built-in rules: their headers and drops from `rule_counts` (every drop, bad lines too),
    their bytes and days from `rule_hits` (the lines with a date); no releases.
    """
    per_day: dict[str, dict[int, list[int]]] = defaultdict(dict)
    hits = every_partition(
        catalog, "rule_hits", ["rule", "day", "headers", "bytes", "releases", "dropped"]
    )
    if hits is not None:
        for row in (
            hits.group_by(["rule", "day"])
            .aggregate([(c, "sum") for c in ("headers", "bytes", "releases", "dropped")])
            .to_pylist()
        ):
            per_day[row["rule"]][row["day"]] = [
                row["headers_sum"],
                row["bytes_sum"],
                row["releases_sum"],
                row["dropped_sum"],
            ]
    builtin: dict[str, int] = defaultdict(int)
    counts = every_partition(catalog, "rule_counts", ["rule", "count"])
    if counts is not None:
        for row in counts.group_by("rule").aggregate([("count", "sum")]).to_pylist():
            builtin[row["rule"]] = row["count_sum"]
    newest = max((d for days in per_day.values() for d in days), default=None)
    # every header any rule dropped, each once: rule_counts counts the operator's drops
    # under their rule ids beside the built-ins'
    all_drops = sum(builtin.values())
    out = []
    for position, rule in enumerate(rules):
        days = per_day.get(rule.id, {})
        totals = [sum(v[k] for v in days.values()) for k in range(4)]
        if rule.builtin:  # headers from rule_counts: bad lines have no date to go by
            totals = [builtin.get(rule.id, 0), totals[1], 0, builtin.get(rule.id, 0)]
        out.append(
            rule.to_json()
            | {
                "position": position,
                "headers": totals[0],
                "bytes": totals[1],
                "releases": totals[2],
                "dropped": totals[3],
                "share": totals[3] / all_drops if all_drops else 0.0,
                "days": [_day_row(d, days[d]) for d in sorted(days)[-DAYS_SHOWN:]],
                **_drift(days, newest),
                "last_hit": date_of(max(days)) if days else None,
            }
        )
    return out


def _drift(days: dict[int, list[int]], newest: int | None) -> dict[str, Any]:
    if newest is None:
        return {"today": 0, "drift": None}
    today = days.get(newest, [0])[0]
    before = [days.get(newest - k, [0])[0] for k in range(1, DRIFT_DAYS + 1)]
    mean = sum(before) / DRIFT_DAYS
    return {"today": today, "drift": today / mean if mean else None}


def _day_row(day: int, v: list[int]) -> dict[str, Any]:
    return {"day": date_of(day), "headers": v[0], "bytes": v[1], "releases": v[2], "dropped": v[3]}


def date_of(day: int) -> str:
    return (dt.date(1970, 1, 1) + dt.timedelta(days=int(day))).isoformat()


def poster_watch(catalog: str, rules: list[Rule]) -> list[dict[str, Any]]:
    """Per watch rule (not off): {id, field, pattern, note, outcomes: [{stage, reason,
    headers, releases}]}, every outcome of what it matched, successes too:

    - stage `header_pass`, reason `kept` or `dropped by <rule id>`: its headers (from
      `rule_hits`; headers a built-in rule dropped before the operator's rules ran are
      not seen by any operator rule);
    - for a poster rule, the releases of the posters it matches: stage `releases`,
      reason `grouped` (finished) or `provisional`; stage `pending`, reason `pending`
      (no usable name yet); stage `article_pass`, reason `named`; stage `judge`, reason
      `judged <rule>` (dead, fake, ...); stage `merges`, reason `merged`.
    The releases are read from the catalog when asked (an admin page), a few columns.
    """
    from pipelines.rules.watch import release_outcomes

    watched = [r for r in rules if r.action == "watch" and r.state != "off"]
    if not watched:
        return []
    hits = every_partition(catalog, "rule_hits", ["rule", "outcome", "headers", "releases"])
    rows = hits.to_pylist() if hits is not None else []
    out = []
    for rule in watched:
        by_reason: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for row in rows:
            if row["rule"] == rule.id and row["outcome"]:
                by_reason[row["outcome"]][0] += row["headers"]
                by_reason[row["outcome"]][1] += row["releases"]
        outcomes = [
            {"stage": "header_pass", "reason": reason, "headers": h, "releases": n}
            for reason, (h, n) in sorted(by_reason.items())
        ]
        if rule.field == "poster":
            outcomes += release_outcomes(catalog, rule)
        out.append({"id": rule.id, "field": rule.field, "pattern": rule.pattern,
                    "note": rule.note, "outcomes": outcomes})  # fmt: skip
    return out


def build_outcomes(catalog: str, days: int) -> list[dict[str, Any]]:
    """Per day (the newest `days` with any) and outcome: {day: "YYYY-MM-DD", outcome,
    count, sample}. Outcomes of the candidates the header pass built, by the day of their
    last part: `built` (a finished, complete release), `incomplete` (finished, files
    missing), `pending` (no usable name yet), `duplicate` (merged into another release),
    `junk` (judged junk), `blacklisted` (headers an operator rule dropped, by the day of
    their dates; the sample from `rule_samples`), `error` (bad header lines, by the day
    their range was indexed). Each with one sample subject or name."""
    from pipelines.rules.watch import day_outcomes

    return day_outcomes(catalog, days)
