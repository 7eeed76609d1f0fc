"""The operator's rules as one automaton per field: a header's field is read once, however
many rules there are (RE2's `Set`: every pattern in one linear-time pass).

Built per group (a rule's group pattern picks the groups it applies to) and per rule set.
A rule that needs a backreference is a superset in the automaton and confirmed by `re` on
its candidates only (`validate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import re2

from pipelines.rules.model import FIELDS, Rule
from pipelines.rules.validate import CONFIRM_CHARS, Compiled, check_rule, options


class RuleMatcher:
    """The rules that apply in `group` and are not off, in evaluation order."""

    def __init__(self, rules: list[Rule], group: str) -> None:
        self.rules = [r for r in rules if not r.builtin and r.state != "off" and _in(r, group)]
        # From hash -> the rules matching that poster: a matcher lives for one range of a
        # group, whose posters come back chunk after chunk (`hits`)
        self.poster_memo: dict[int, list[int]] = {}
        self._sets: dict[str, tuple[re2.Set, list[int], list[Compiled]]] = {}
        for field in FIELDS:
            indexes = [i for i, r in enumerate(self.rules) if r.field == field]
            if not indexes:
                continue
            compiled = [_compiled(self.rules[i]) for i in indexes]
            automaton = re2.Set.SearchSet(options())
            for c in compiled:
                automaton.Add(c.re2_pattern)
            automaton.Compile()
            self._sets[field] = (automaton, indexes, compiled)

    def fields(self) -> list[str]:
        """The fields some rule looks at."""
        return list(self._sets)

    def match(self, field: str, text: str | bytes) -> list[int]:
        """The positions (in `self.rules`) of the rules matching the text, in order."""
        return next((hit for _, hit in self.match_many(field, [text])), [])

    def match_many(self, field: str, texts: Sequence[str | bytes]) -> list[tuple[int, list[int]]]:
        """(i, positions of the rules matching texts[i]) for each text some rule matches.

        The loop a header pass runs a chunk's files through: one call into RE2 per text
        (UTF-8 bytes go in as they are), Python work only for the texts that match."""
        found = self._sets.get(field)
        if found is None:
            return []
        automaton, indexes, compiled = found
        match = automaton.Match
        out = []
        for i, hits in enumerate([match(t) for t in texts]):
            if not hits:
                continue
            rules = []
            for k in sorted(hits):
                confirm = compiled[k].confirm
                if confirm is None or confirm.search(_text(texts[i])[:CONFIRM_CHARS]):
                    rules.append(indexes[k])
            if rules:
                out.append((i, rules))
        return out


def _text(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("utf-8", "replace")


@lru_cache(maxsize=4096)
def _group_matches(pattern: str, group: str) -> bool:
    return bool(re2.compile(pattern, options()).search(group))


def _in(rule: Rule, group: str) -> bool:
    return not rule.group or not group or _group_matches(rule.group, group)


def applies_in(rule: dict[str, Any], group: str) -> bool:
    """Does a rule (as its JSON) apply in the group?"""
    scope = str(rule.get("group") or "")
    return not scope or _group_matches(scope, group)


def _compiled(rule: Rule) -> Compiled:
    compiled = check_rule(rule)
    assert compiled is not None  # not a built-in
    return compiled
