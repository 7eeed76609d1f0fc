"""The rule set a pass runs with: the configured one (`--rules FILE`, the Dagster
resource) with the operator's rules the catalog holds (`store`) as its `filters`.

Both the range scheduler and the range indexer ask here, so a range's fingerprint and
the one it is compared with agree; the indexer records the set (`record_rules`) before a
range runs with it, so that a later change can tell what changed.

`rules try` runs a draft in place of the stored set (`drafted`): the scheduler and the
indexer then see the draft and where its rules fire, and nothing is written to the
catalog for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from pipelines.index.rules import Rules
from pipelines.rules.model import Rule
from pipelines.rules.store import load_rules, set_stamp


@dataclass(frozen=True)
class Draft:
    operator: tuple[Rule, ...]  # the operator's rules, in order
    fires: dict[str, dict[str, Any]]  # a scan's records by rule key (`fires`)


_DRAFT: ContextVar[Draft | None] = ContextVar("rules_draft", default=None)


@contextmanager
def drafted(draft: Draft) -> Iterator[None]:
    token = _DRAFT.set(draft)
    try:
        yield
    finally:
        _DRAFT.reset(token)


def current_draft() -> Draft | None:
    return _DRAFT.get()


# the stored set as the pass runs it, per catalog, while its file stays the same: a live
# cycle's ranges do not read and build a few hundred rules each
_LOADED: dict[str, tuple[Any, tuple[Rule, ...]]] = {}


def operator_rules(catalog: str) -> tuple[Rule, ...]:
    draft = _DRAFT.get()
    if draft is not None:
        return _as_run(draft.operator)
    stamp = set_stamp(catalog)
    cached = _LOADED.get(catalog)
    if stamp is not None and cached is not None and cached[0] == stamp:
        return cached[1]
    rules = _as_run(tuple(load_rules(catalog).operator))
    _LOADED[catalog] = (stamp, rules)
    return rules


def _as_run(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    # what the pass runs with: the note and the time added are the operator's bookkeeping
    return tuple(r.with_changes(note="", created=0) for r in rules)


def catalog_rules(catalog: str, rules: Rules, record: bool = False) -> Rules:
    operator = operator_rules(catalog)
    merged = rules if operator == rules.filters else replace(rules, filters=operator)
    if record and merged.filters:
        # the scheduler imports the indexer, which asks here: imported when first needed
        from pipelines.index.schedule import record_rules

        record_rules(catalog, merged)
    return merged
