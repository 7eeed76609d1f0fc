"""The rule set in the catalog: read it, and change it one checked step at a time.

`<catalog>/_rules/set.json` holds the operator's rules in evaluation order (the built-ins
are not stored: they are `model.BUILTINS`, in their fixed places) and the last changes
made, who made them and when. Every change is written whole under a temporary name and
renamed into place (`atomic_put`), under a lock when the catalog is local, so two editors
never lose each other's change and a reader never sees half a set.

The set's fingerprint goes into the header pass's rule set (`Rules.filters`), so a change
makes the ranges it touches stale (docs/RULES.md "Applying a rule").

Read functions for the admin pages and `status.json`: `rule_counters`, `poster_watch`,
`build_outcomes` (`pipelines.rules.counters`), plain lists of dicts.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pipelines.catalog.lock import file_lock
from pipelines.catalog.partitions import is_local
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.rules import counters, sample
from pipelines.rules.model import BUILTIN_IDS, Rule, fingerprint, ordered
from pipelines.rules.validate import RuleRefused, check_rule

SET_FILE = "_rules/set.json"
LOCK_FILE = "_rules/set.lock"
MAX_LOG = 500  # changes kept in the set's file
MAX_SHARE = 0.2  # a rule matching more of the recent sample than this needs force
# what an edit may set (the id, kind, time added and built-in flag are the store's)
EDITABLE = frozenset({"field", "pattern", "literal", "group", "action", "state", "note"})

__all__ = [
    "RuleRefused",
    "RuleSet",
    "add_rule",
    "build_outcomes",
    "delete_rule",
    "load_rules",
    "move_rule",
    "poster_watch",
    "rule_counters",
    "set_rules",
    "update_rule",
]


@dataclass(frozen=True)
class RuleSet:
    """The whole set in evaluation order, and the version of the operator's part."""

    rules: list[Rule]  # built-ins and the operator's, as the header pass applies them
    fingerprint: str
    log: list[dict[str, Any]]  # the last changes: {"at", "who", "what", "id"}

    @property
    def operator(self) -> list[Rule]:
        return [r for r in self.rules if not r.builtin]

    def get(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise RuleRefused(f"no rule {rule_id!r}")


def load_rules(catalog: str) -> RuleSet:
    """The catalog's rule set (the built-ins alone when the operator has none)."""
    doc = _read(catalog)
    operator = [Rule.from_json(r) for r in doc["rules"]]
    return RuleSet(ordered(operator), fingerprint(operator), list(doc["log"]))


def add_rule(
    catalog: str,
    pattern: str,
    who: str,
    *,
    position: int | None = None,
    force: bool = False,
    **fields: Any,
) -> Rule:
    """Add an operator rule (at the end, or at `position` among the operator's rules).
    `fields`: the rule's field, literal, group, action, state, note, kind (`Rule`'s
    defaults for the rest)."""
    unknown = set(fields) - EDITABLE - {"kind"}
    if unknown:
        raise RuleRefused(f"a rule has no {', '.join(sorted(unknown))}")
    with _editing(catalog) as doc:
        now = int(time.time())
        rule = Rule(id=f"r{doc['next_id']}", pattern=pattern, created=now, **fields)
        _check(catalog, rule, force)
        doc["next_id"] += 1
        rules = doc["rules"]
        rules.insert(
            len(rules) if position is None else _place(position, len(rules)), rule.to_json()
        )
        _log(doc, who, "add", rule.id, now)
    return rule


def update_rule(catalog: str, rule_id: str, who: str, force: bool = False, **changes: Any) -> Rule:
    """Change a rule's pattern, field, scope, action, state or note."""
    fixed = {"id", "kind", "created", "builtin"} & set(changes)
    if fixed:
        raise RuleRefused(f"a rule's {', '.join(sorted(fixed))} cannot be changed")
    with _editing(catalog) as doc:
        i = _find(doc, rule_id)
        try:
            rule = Rule.from_json(doc["rules"][i]).with_changes(**changes)
        except TypeError as exc:
            raise RuleRefused(str(exc)) from exc
        widened = {"pattern", "literal", "field", "group", "action"} & set(changes)
        _check(catalog, rule, force or not widened)
        doc["rules"][i] = rule.to_json()
        _log(doc, who, "update " + ", ".join(sorted(changes)), rule_id, int(time.time()))
    return rule


def move_rule(catalog: str, rule_id: str, position: int, who: str) -> None:
    """Move a rule to `position` (0-based) among the operator's rules."""
    with _editing(catalog) as doc:
        rule = doc["rules"].pop(_find(doc, rule_id))
        doc["rules"].insert(_place(position, len(doc["rules"])), rule)
        _log(doc, who, f"move to {position}", rule_id, int(time.time()))


def delete_rule(catalog: str, rule_id: str, who: str) -> None:
    with _editing(catalog) as doc:
        doc["rules"].pop(_find(doc, rule_id))
        _log(doc, who, "delete", rule_id, int(time.time()))


def set_rules(
    catalog: str, rules: list[dict[str, Any]], who: str, force: bool = False
) -> list[Rule]:
    """Make the operator's list `rules` (dicts of Rule fields; a rule with the id of a
    stored one changes it, one without an id is new), in that order; stored rules not in
    it are deleted. All or nothing: one refused rule refuses the whole list."""
    with _editing(catalog) as doc:
        now = int(time.time())
        stored = {r["id"]: Rule.from_json(r) for r in doc["rules"]}
        out: list[Rule] = []
        for given in rules:
            given = {k: v for k, v in given.items() if k not in ("kind", "created", "builtin")}
            rule_id = str(given.pop("id", "") or "")
            if rule_id in BUILTIN_IDS:
                raise RuleRefused(
                    f"{rule_id} is a built-in rule: the header pass's shape, not data"
                )
            if rule_id and rule_id not in stored:
                raise RuleRefused(f"no rule {rule_id!r}")
            if rule_id:
                rule = stored[rule_id].with_changes(**given)
                same = rule.matching() == stored[rule_id].matching()
            else:
                rule = Rule(id=f"r{doc['next_id']}", created=now, **given)
                doc["next_id"] += 1
                same = False
            if not same:
                _check(catalog, rule, force)
            out.append(rule)
        if len({r.id for r in out}) != len(out):
            raise RuleRefused("a rule is listed twice")
        doc["rules"] = [r.to_json() for r in out]
        _log(doc, who, f"set {len(out)} rules", "", now)
    return out


def rule_counters(catalog: str) -> list[dict[str, Any]]:
    """Every rule in evaluation order with its counters (`counters.rule_counters`)."""
    return counters.rule_counters(catalog, load_rules(catalog).rules)


def poster_watch(catalog: str) -> list[dict[str, Any]]:
    """Every watched poster's outcomes by stage and reason (`counters.poster_watch`)."""
    return counters.poster_watch(catalog, load_rules(catalog).rules)


def build_outcomes(catalog: str, days: int = 14) -> list[dict[str, Any]]:
    """Per day and outcome, the candidates' count and one sample subject
    (`counters.build_outcomes`)."""
    return counters.build_outcomes(catalog, days)


# --- the file ----------------------------------------------------------------------


def set_stamp(catalog: str) -> tuple[Any, ...] | None:
    """What tells one version of the set's file from another (None: cannot tell, read it):
    a rename into place gives the file a new inode and time."""
    fs, root = open_fs(catalog)
    if not is_local(fs):
        return None
    try:
        st = os.stat(f"{root}/{SET_FILE}")
    except FileNotFoundError:
        return ("none",)
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _empty() -> dict[str, Any]:
    return {"rules": [], "next_id": 1, "log": []}


def _read(catalog: str) -> dict[str, Any]:
    fs, root = open_fs(catalog)
    try:
        doc = json.loads(fs.cat_file(f"{root}/{SET_FILE}"))
    except FileNotFoundError:
        return _empty()
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the rule set {root}/{SET_FILE}: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("rules"), list):
        raise ValueError(f"the rule set {root}/{SET_FILE} is not a rule set")
    return _empty() | doc


@contextmanager
def _editing(catalog: str) -> Iterator[dict[str, Any]]:
    """The set's document to change; written back when the block ends without error."""
    fs, root = open_fs(catalog)
    with file_lock(fs, f"{root}/{LOCK_FILE}"):
        doc = _read(catalog)
        yield doc
        atomic_put(fs, f"{root}/{SET_FILE}", json.dumps(doc, indent=1).encode())


def _find(doc: dict[str, Any], rule_id: str) -> int:
    if rule_id in BUILTIN_IDS:
        raise RuleRefused(f"{rule_id} is a built-in rule: the header pass's shape, not data")
    for i, r in enumerate(doc["rules"]):
        if r["id"] == rule_id:
            return i
    raise RuleRefused(f"no rule {rule_id!r}")


def _place(position: int, n: int) -> int:
    if not 0 <= position <= n:
        raise RuleRefused(f"position {position} is outside 0..{n}")
    return position


def _check(catalog: str, rule: Rule, force: bool) -> None:
    check_rule(rule)
    if force or rule.state == "off" or rule.action != "drop":
        return
    share, seen = sample.share_matched(catalog, rule)
    if share > MAX_SHARE:
        raise RuleRefused(
            f"the rule matches {share:.0%} of {seen} recent headers (more than "
            f"{MAX_SHARE:.0%}): add it with force if that is meant"
        )


def _log(doc: dict[str, Any], who: str, what: str, rule_id: str, at: int) -> None:
    doc["log"] = [*doc["log"], {"at": at, "who": who, "what": what, "id": rule_id}][-MAX_LOG:]
