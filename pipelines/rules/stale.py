"""Which operator rule changes touch a range: Voyager's recovery for the rule set's
`filters` (`pipelines.index.schedule.stale_reason` asks here).

A rule touches a range when, in a group its scope takes in, one of these holds:
- it matched there before the change (the range's `rule_hits` or `rule_counts` name it):
  turning it off, shadowing it, changing or deleting it changes what it did there;
- its new version may match there: it was added, changed or turned on, and the scan of
  stored ranges (`fires`) found it there, or never scanned there.
A rule only moved in the order touches the ranges where it matched: where it did not,
no header sees two rules in another order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipelines.rules.matcher import applies_in

WouldFire = Callable[[dict[str, Any]], bool | None]


def filters_stale(
    old: list[dict[str, Any]],
    new: list[dict[str, Any]],
    group: str,
    fired: set[str],
    would_fire: WouldFire,
) -> str | None:
    old_by_id = {r["id"]: r for r in old}
    new_by_id = {r["id"]: r for r in new}
    for rule_id in sorted(set(old_by_id) | set(new_by_id)):
        before, after = old_by_id.get(rule_id), new_by_id.get(rule_id)
        if before == after:
            continue
        if before is not None and rule_id in fired and applies_in(before, group):
            return f"rule {rule_id}, which matched here, changed"
        if after is not None and after.get("state") != "off" and applies_in(after, group):
            fires = would_fire(after)
            if fires is None:
                return f"rule {rule_id} may match here now (not scanned)"
            if fires:
                return f"rule {rule_id} matches here now"
    for rule_id in _reordered(old, new):
        if rule_id in fired:
            return f"rule {rule_id}, which matched here, moved in the order"
    return None


def _reordered(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> set[str]:
    """The rules whose predecessors among the rules of both sets changed."""
    both = {r["id"] for r in old} & {r["id"] for r in new}
    a = [r["id"] for r in old if r["id"] in both]
    b = [r["id"] for r in new if r["id"] in both]
    before_a = {rid: set(a[:i]) for i, rid in enumerate(a)}
    return {rid for i, rid in enumerate(b) if set(b[:i]) != before_a[rid]}
