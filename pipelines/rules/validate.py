"""Is a pattern safe to run on every header? It must compile, be bounded, and take time
linear in the header's length.

RE2 (google-re2) guarantees linear time: it has no backtracking, so `(a+)+$` runs in one
pass like any other pattern. What RE2 cannot run is a backreference (nZEDb's rule 13:
`"\\1"`, a name equal to the hash before it). Such a pattern is kept bounded: RE2 runs it
with each `\\N` widened to group N's own pattern (a superset), and Python's `re` confirms
the few candidates on at most `CONFIRM_CHARS` characters, only when the pattern has no
nested repetition (the shape that backtracks without end).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import re2

from pipelines.rules.model import ACTIONS, FIELDS, STATES, Rule

MAX_PATTERN = 1000  # characters: nZEDb's longest is 870
MAX_PROGRAM = 8 << 20  # bytes of RE2 memory a pattern may take
CONFIRM_CHARS = 1024  # a backreference rule looks at this much of a field
_BACKREF = re.compile(r"\\([1-9])")


class RuleRefused(ValueError):
    """A rule that cannot be saved, and why (the reason is meant for the operator)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Compiled:
    """What the matcher runs for a rule's pattern: an RE2 pattern (the superset, for a
    backreference rule) and, if any, the `re` pattern that confirms its candidates."""

    re2_pattern: str
    confirm: re.Pattern[str] | None = None


def options() -> re2.Options:
    opts = re2.Options()
    opts.case_sensitive = False
    opts.max_mem = MAX_PROGRAM
    opts.log_errors = False  # the refusal says why; RE2's own log is noise on stderr
    return opts


def check_rule(rule: Rule) -> Compiled | None:
    """The rule's compiled form (None for a built-in), or RuleRefused saying why not."""
    if rule.builtin:
        return None
    if rule.field not in FIELDS:
        raise RuleRefused(f"field must be one of {', '.join(FIELDS)}, not {rule.field!r}")
    if rule.action not in ACTIONS:
        raise RuleRefused(f"action must be one of {', '.join(ACTIONS)}, not {rule.action!r}")
    if rule.state not in STATES:
        raise RuleRefused(f"state must be one of {', '.join(STATES)}, not {rule.state!r}")
    if rule.group:
        _re2(rule.group, "group pattern")
    return compile_pattern(rule.pattern, rule.literal)


def compile_pattern(pattern: str, literal: bool = False) -> Compiled:
    if not pattern:
        raise RuleRefused("an empty pattern matches every header")
    if len(pattern) > MAX_PATTERN:
        raise RuleRefused(f"the pattern is {len(pattern)} characters; at most {MAX_PATTERN}")
    if literal:
        return Compiled(re2.escape(pattern))
    if _BACKREF.search(_without_escaped_backslashes(pattern)):
        return _with_backreference(pattern)
    _re2(pattern, "pattern")
    if re2.compile(pattern, options()).search(""):
        raise RuleRefused("the pattern matches an empty field, so every header")
    return Compiled(pattern)


def _re2(pattern: str, what: str) -> None:
    try:
        re2.compile(pattern, options())
    except re2.error as exc:
        raise RuleRefused(f"the {what} does not compile: {_message(exc)}") from exc


def _message(exc: Exception) -> str:
    text = str(exc.args[0] if exc.args else exc)
    return text[2:-1] if text.startswith(("b'", 'b"')) else text


def _without_escaped_backslashes(pattern: str) -> str:
    return pattern.replace("\\\\", "")


def _with_backreference(pattern: str) -> Compiled:
    try:
        confirm = re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise RuleRefused(f"the pattern does not compile: {exc}") from exc
    if _nested_repeat(pattern):
        raise RuleRefused(
            "a backreference pattern with a repetition inside a repetition can take "
            "exponential time"
        )
    groups = capture_groups(pattern)
    wide = _BACKREF.sub(lambda m: _widen(groups, int(m.group(1))), pattern)
    _re2(wide, "pattern (its backreferences widened)")
    return Compiled(wide, confirm)


def _widen(groups: list[str], n: int) -> str:
    if n > len(groups):
        raise RuleRefused(f"backreference \\{n} names no group")
    return f"(?:{_BACKREF.sub('(?:.*)', groups[n - 1])})"


def capture_groups(pattern: str) -> list[str]:
    """The source text of each capturing group's body, by group number."""
    bodies: list[str] = []
    stack: list[tuple[int, int]] = []  # (start of the body, group number or -1)
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif c == "(":
            capturing = pattern[i + 1 : i + 2] != "?" or pattern[i + 1 : i + 3] in ("?P", "?<")
            if capturing and pattern[i + 1 : i + 3] in ("?P", "?<"):
                end = pattern.index(">", i)
                stack.append((end + 1, len(bodies)))
            else:
                stack.append((i + 1 if capturing else i, len(bodies) if capturing else -1))
            if capturing:
                bodies.append("")
        elif c == ")" and stack:
            start, number = stack.pop()
            if number >= 0:
                bodies[number] = pattern[start:i]
        i += 1
    return bodies


def _nested_repeat(pattern: str) -> bool:
    from re import _parser  # type: ignore[attr-defined]

    repeats = {_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT}

    def walk(items: object, inside: bool) -> bool:
        for op, arg in items:  # type: ignore[attr-defined]
            if op in repeats:
                low, high, sub = arg
                if inside and high != low:
                    return True
                if walk(sub, inside or high > 1):
                    return True
            elif op == _parser.SUBPATTERN:
                if walk(arg[-1], inside):
                    return True
            elif op == _parser.BRANCH and any(walk(b, inside) for b in arg[1]):
                return True
        return False

    return walk(_parser.parse(pattern, re.IGNORECASE), False)
