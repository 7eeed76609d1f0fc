"""`/admin/status.json` for monitors, as the Go plugin's: what each stage did, the rule
counters and the recent errors, in one JSON document.

Read from the catalog (the live loop's last cycle, `pipelines/live_status.py`; the
stages' tables through the DuckDB views, as the status page reads them; the rule
counters through the rule store) and from this server (its last
refresh, its damaged partitions, wrong keys and slowed addresses, refused admin
actions). A part that cannot be read says so under `errors` instead of failing the
whole document: a monitor still gets the rest.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from pipelines.live_status import read_status
from pipelines.predb import shown
from pipelines.rules import store
from serving.admin_log import AdminLog
from serving.state import Catalog

log = logging.getLogger(__name__)
RULE_FIELDS = ("id", "kind", "field", "action", "state", "position", "headers", "bytes",
               "releases", "dropped", "share", "today", "drift", "last_hit")  # fmt: skip


def attempt(read: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
    """`read(*args)`, or (None, what went wrong): one part failing leaves the others."""
    try:
        return read(*args), None
    except NotImplementedError:
        return None, "not available in this version"
    except Exception as exc:
        log.exception("admin status: %s failed", getattr(read, "__name__", read))
        return None, f"{type(exc).__name__}: {exc}"


def status(catalog: Catalog, actions: AdminLog) -> dict[str, Any]:
    errors: list[dict[str, Any]] = []

    def part(name: str, read: Callable[..., Any], *args: Any) -> Any:
        value, problem = attempt(read, *args)
        if problem is not None:
            errors.append({"where": name, "what": problem})
        return value

    where = catalog.settings.catalog
    seen = part("catalog", catalog.status) or {}
    stats = part("index", catalog.snapshot.stats) or {}
    rules = part("rules", store.rule_counters, where) or []
    live = part("live", read_status, where)  # the live loop's last cycle, if one runs
    errors += [{"where": "live", "at": p["at"], "what": p["what"]}
               for p in (live or {}).get("problems", [])[-10:]]  # fmt: skip
    refresh = catalog.index.last_refresh
    if catalog.last_error:
        errors.append({"where": "refresh", "what": catalog.last_error})
    errors += [{"where": "partition", "what": f"{d['table']} {d['path']}: {d['problem']}"}
               for d in seen.get("damaged", [])]  # fmt: skip
    wrong = catalog.limits.wrong_keys
    refused = [a for a in actions.recent(50) if str(a.get("outcome", "")).startswith(("refused",
               "wrong"))]  # fmt: skip
    return {
        "at": int(time.time()),
        "live": live,
        "stages": {
            "header_pass": _header_pass(seen),
            "article_pass": seen.get("probes"),
            "merge": seen.get("judged", {}).get("merges"),
            "health": seen.get("judged", {}).get("health"),
            "judge": seen.get("judged", {}).get("verdicts"),
            "predb": part("predb", shown.summary, where),
            "index": {
                "releases": stats.get("releases"),
                "segments": stats.get("segments"),
                "last_refresh": None if refresh is None else asdict(refresh),
            },
        },
        "rules": [{k: r.get(k) for k in RULE_FIELDS} for r in rules],
        "keys": {
            "wrong_keys": wrong.wrong_total,
            "slowed_requests": wrong.slowed_total,
            "slowed_now": wrong.slowed_now(),
            "recent_wrong": list(wrong.recent)[-20:],
            "anonymous_limits": _anonymous(catalog),
        },
        "errors": errors,
        "admin_refused": refused[:20],
    }


def _header_pass(seen: dict[str, Any]) -> dict[str, Any]:
    groups = seen.get("groups", [])
    runs = seen.get("last_runs", [])
    return {
        "ranges": sum(g["ranges"] for g in groups),
        "headers": sum(g["headers"] or 0 for g in groups),
        "segments_kept": sum(g["segments"] or 0 for g in groups),
        "pending": seen.get("pending"),
        "last_indexed": max((g["indexed_at"] for g in groups if g["indexed_at"]), default=None),
        "last_runs": [
            {k: v for k, v in r.items() if isinstance(v, (int, float, str))} for r in runs[:5]
        ],
    }


def _anonymous(catalog: Catalog) -> dict[str, Any]:
    s = catalog.settings
    return {"open_api": s.open_api, "requests_per_address": s.anonymous_requests or None,
            "downloads_per_address": s.anonymous_downloads or None}  # fmt: skip


def by_day(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Build outcomes as one row a day, newest first: {day, outcomes: {outcome: (count,
    sample)}}."""
    days: dict[str, dict[str, Any]] = {}
    for r in rows:
        day = days.setdefault(r["day"], {"day": r["day"], "outcomes": {}})
        day["outcomes"][r["outcome"]] = (r["count"], r.get("sample") or "")
    return sorted(days.values(), key=lambda d: d["day"], reverse=True)
