"""A rule of the set: what it looks at, what it matches, what it does (docs/RULES.md)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

FIELDS = ("subject", "poster", "message_id")
ACTIONS = ("drop", "keep", "watch")
STATES = ("on", "off", "shadow")
KINDS = ("builtin", "operator", "nzedb")

# What changes what a range's pass does (the rest is the operator's bookkeeping): these
# make the rule set's fingerprint.
MATCHING = ("id", "field", "pattern", "literal", "group", "action", "state")


@dataclass(frozen=True)
class Rule:
    """One rule. `pattern` is a regex (RE2 syntax, matched case-insensitively anywhere in
    the field) or, with `literal`, plain text found anywhere in it. `group` is a regex a
    group's name must match for the rule to apply there ("" = every group)."""

    id: str
    kind: str = "operator"  # builtin | operator | nzedb (imported from nZEDb's blacklist)
    field: str = "subject"
    pattern: str = ""
    literal: bool = False
    group: str = ""
    action: str = "drop"
    state: str = "on"
    note: str = ""
    created: int = 0  # epoch seconds
    builtin: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Rule:
        known = {f.name for f in fields(cls)}
        unknown = set(doc) - known
        if unknown:
            raise ValueError(f"unknown rule fields: {', '.join(sorted(unknown))}")
        return cls(**doc)

    def matching(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in MATCHING}

    def with_changes(self, **changes: Any) -> Rule:
        return replace(self, **changes)


# The header pass's own rules, in the order it applies them (pipelines/index/parse.py).
# They keep their places; the operator's rules run between bad_part_counter and
# duplicate_segment: on the lines of files (a subject that parses, a part counter), a
# file's subject read once (docs/RULES.md "Where the rules run").
BUILTINS: tuple[Rule, ...] = tuple(
    Rule(id=name, kind="builtin", field=f, action="drop", note=note, builtin=True)
    for name, f, note in (
        ("bad_line", "subject", "a header line that cannot be read (too few fields, ...)"),
        ("crosspost", "subject", "a crosspost owned by another indexed group"),
        ("garbage_signature", "poster", "a poster of the rule set's garbage signatures"),
        ("random_subject", "subject", "a per-article random subject or a hash subject"),
        ("no_part_counter", "subject", "no yEnc part counter: text posts, hash subjects"),
        ("bad_part_counter", "subject", "a part past its total, or an absurd total"),
        ("duplicate_segment", "subject", "a part number seen twice in one file"),
    )
)
BUILTIN_IDS = frozenset(r.id for r in BUILTINS)
# where the operator's rules sit among the built-ins
OPERATOR_AFTER = "bad_part_counter"


def ordered(operator: list[Rule]) -> list[Rule]:
    """The whole set in evaluation order: built-ins, with the operator's in their place."""
    cut = [r.id for r in BUILTINS].index(OPERATOR_AFTER) + 1
    return [*BUILTINS[:cut], *operator, *BUILTINS[cut:]]


def fingerprint(operator: list[Rule]) -> str:
    """The operator's rules' version: what they match and do, in order."""
    body = json.dumps([r.matching() for r in operator], sort_keys=True).encode()
    return hashlib.sha1(body).hexdigest()[:12]
