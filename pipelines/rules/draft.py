"""A draft of the operator's rule list: the stored one with one change, checked as the
store would check it, and not saved (`rules try`)."""

from __future__ import annotations

from typing import Any

from pipelines.rules.model import Rule
from pipelines.rules.store import RuleRefused, load_rules
from pipelines.rules.validate import check_rule


def draft_of(catalog: str, rule: str, changes: dict[str, Any], delete: bool = False) -> list[Rule]:
    """The operator's rules with `rule` (an id) changed or deleted, or with a new rule of
    pattern `rule` added at the end (its id: `draft`)."""
    operator = load_rules(catalog).operator
    ids = [r.id for r in operator]
    if rule in ids:
        i = ids.index(rule)
        if delete:
            return operator[:i] + operator[i + 1 :]
        changed = operator[i].with_changes(**changes)
        check_rule(changed)
        return [*operator[:i], changed, *operator[i + 1 :]]
    if delete:
        raise RuleRefused(f"no rule {rule!r} to delete")
    new = Rule(id="draft", pattern=rule, **changes)
    check_rule(new)
    return [*operator, new]
