"""The operator's rules on one chunk's files, and what every rule matched.

Where they run (docs/RULES.md): on the lines still in play after the built-in subject
rules, a file at a time: the lines of one subject class (a file's lines, which differ
only in their part counter) share one decoded subject, matched once; posters are matched
once per distinct poster, message-ids per line. So a file is kept or dropped whole, and
the cost grows with the files and the rules that match, not with the lines times rules.

Every rule that matches a header gets credit (`RuleHits`); the first rule in evaluation
order that is on and drops or keeps decides the header. Shadow and watch rules only count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pipelines.rfc2047 import decode_subjects
from pipelines.rules.matcher import RuleMatcher

SECONDS_A_DAY = 86_400


@dataclass
class RuleHits:
    """Per (rule id, day, outcome): headers, bytes and headers dropped; the release
    identities. The outcome splits a watch rule's rows (`kept`, `dropped by <rule>`)."""

    counts: dict[tuple[str, int, str], list[int]] = field(default_factory=dict)
    releases: dict[tuple[str, int, str], set[int]] = field(default_factory=dict)

    def add(
        self,
        rule: str,
        day: np.ndarray,
        nbytes: np.ndarray,
        ident: np.ndarray,
        dropped: np.ndarray,
        outcome: str = "",
    ) -> None:
        """Count the lines a rule matched (`dropped`: those of them it dropped)."""
        days, inverse = np.unique(day, return_inverse=True)
        headers = np.bincount(inverse, minlength=len(days))
        sizes = np.bincount(inverse, weights=nbytes, minlength=len(days))
        drops = np.bincount(inverse, weights=dropped, minlength=len(days))
        for k, d in enumerate(days.tolist()):
            row = self.counts.setdefault((rule, d, outcome), [0, 0, 0])
            row[0] += int(headers[k])
            row[1] += int(sizes[k])
            row[2] += int(drops[k])
            self.releases.setdefault((rule, d, outcome), set()).update(ident[inverse == k].tolist())

    def credit(self, rule: str, date: np.ndarray, nbytes: np.ndarray) -> None:
        """Count a built-in rule's drops per day: headers, bytes (no release: a line a
        built-in drops is in none)."""
        if not len(date):
            return
        day = date // SECONDS_A_DAY
        first = int(day.min())
        at = day - first  # a chunk's lines lie within a few days: no sort
        headers = np.bincount(at)
        sizes = np.bincount(at, weights=np.maximum(nbytes, 0))
        for k in np.flatnonzero(headers).tolist():
            row = self.counts.setdefault((rule, first + k, ""), [0, 0, 0])
            n = int(headers[k])
            row[0] += n
            row[1] += int(sizes[k])
            row[2] += n

    def rows(self) -> list[tuple[str, int, int, int, int, int, str]]:
        """(rule, day, headers, bytes, releases, dropped, outcome), sorted."""
        return [
            (
                rule,
                day,
                c[0],
                c[1],
                len(self.releases.get((rule, day, outcome), ())),
                c[2],
                outcome,
            )
            for (rule, day, outcome), c in sorted(self.counts.items())
        ]


@dataclass(frozen=True)
class ChunkLines:
    """The lines in play, as positions into the chunk, and what the rules read of them."""

    line: np.ndarray  # int64: chunk line numbers
    cls: np.ndarray  # int64: each line's subject class (a row of the shared subjects)
    poster: np.ndarray  # uint64: From hash
    date: np.ndarray  # int64: effective date
    nbytes: np.ndarray  # int64
    ident: np.ndarray  # uint64: the release identity each line would join
    # per subject class, the chunk line that stands for it: the class's first live line
    # (in play or not), so `fires` finds the same text scanning a range (`class_reps`)
    rep: np.ndarray


@dataclass(frozen=True)
class Verdict:
    dropped: np.ndarray  # bool per line in play: an operator rule dropped it
    by_rule: dict[str, np.ndarray]  # rule id -> bool per line: the lines it dropped


def apply_rules(
    matcher: RuleMatcher,
    data: np.ndarray,
    subject: tuple[np.ndarray, np.ndarray],
    poster: tuple[np.ndarray, np.ndarray],
    message_id: tuple[np.ndarray, np.ndarray],
    lines: ChunkLines,
    hits: RuleHits,
) -> Verdict | None:
    """Match the rules on the lines; count every match; which lines they drop (None:
    no rule matched any)."""
    fields = matcher.fields()
    n = len(lines.line)
    if not n or not fields:
        return None
    matched: dict[int, np.ndarray] = {}  # rule position -> bool per line
    if "subject" in fields:
        _by_unit(matcher, "subject", lines.cls, _subjects(data, subject, lines), matched, n)
    if "poster" in fields:
        unit_of, first = _poster_units(lines)
        _mark(_posters_matching(matcher, data, poster, lines, first), unit_of, matched)
    if "message_id" in fields:
        mids = texts_of(data, message_id[0][lines.line], message_id[1][lines.line])
        _by_unit(matcher, "message_id", np.arange(n), dict(enumerate(mids)), matched, n)
    if not matched:
        return None
    undecided = np.ones(n, bool)
    dropped = np.zeros(n, bool)
    by_rule: dict[str, np.ndarray] = {}
    watched: list[tuple[str, np.ndarray]] = []
    day = lines.date // SECONDS_A_DAY
    for position in sorted(matched):
        rule, mask = matcher.rules[position], matched[position]
        decides = mask & undecided if rule.state == "on" and rule.action != "watch" else None
        drops = decides if decides is not None and rule.action == "drop" else None
        if decides is not None:
            undecided &= ~decides
        if drops is not None:
            dropped |= drops
            by_rule[rule.id] = drops
        if rule.action == "watch":
            watched.append((rule.id, mask))
            continue
        sel = np.flatnonzero(mask)
        lost = drops[sel] if drops is not None else np.zeros(len(sel), bool)
        hits.add(rule.id, day[sel], lines.nbytes[sel], lines.ident[sel], lost)
    for rule_id, mask in watched:  # what became of the watched headers, by the deciding rule
        none = np.zeros(int(mask.sum()), bool)
        outcomes = [("kept", mask & ~dropped)]
        outcomes += [(f"dropped by {by}", mask & lost) for by, lost in by_rule.items()]
        for outcome, part in outcomes:
            sel = np.flatnonzero(part)
            if len(sel):
                hits.add(rule_id, day[sel], lines.nbytes[sel], lines.ident[sel], none[: len(sel)],
                         outcome)  # fmt: skip
    return Verdict(dropped, by_rule)


def _subjects(
    data: np.ndarray, subject: tuple[np.ndarray, np.ndarray], lines: ChunkLines
) -> dict[int, bytes]:
    """The decoded subject of each class a line in play belongs to."""
    present = np.zeros(len(lines.rep), bool)  # a scatter: no sort of the chunk's lines
    present[lines.cls] = True
    classes = np.flatnonzero(present)
    return subject_texts(data, subject, classes, lines.rep[classes])


def _poster_units(lines: ChunkLines) -> tuple[np.ndarray, np.ndarray]:
    """(unit of each line, a line of each unit): one unit per distinct poster.

    A file's lines share a poster, so the distinct posters are found among one line of
    each class and the few lines whose poster is not their class's first line's: a sort
    of a few thousand keys a chunk, not of every line's."""
    first_of_class = np.full(len(lines.rep), -1, np.int64)
    first_of_class[lines.cls[::-1]] = np.arange(len(lines.cls) - 1, -1, -1)
    own = first_of_class[lines.cls]  # each line's class's first line in play
    odd = np.flatnonzero(lines.poster != lines.poster[own])
    candidates = np.concatenate([first_of_class[first_of_class >= 0], odd])
    units, at = np.unique(lines.poster[candidates], return_index=True)
    return np.searchsorted(units, lines.poster), candidates[at]


def class_reps(row: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Per subject class (a row of the shared subjects), its first live chunk line."""
    rep = np.full(int(row.max()) + 1 if len(row) else 0, -1, np.int64)
    rep[row[::-1]] = live[::-1]
    return rep


def subject_texts(
    data: np.ndarray, subject: tuple[np.ndarray, np.ndarray], classes: np.ndarray, reps: np.ndarray
) -> dict[int, bytes]:
    buf, start, end = decode_subjects(data, subject[0][reps], subject[1][reps])
    return dict(zip(classes.tolist(), texts_of(buf, start, end), strict=True))


def _by_unit(
    matcher: RuleMatcher,
    field: str,
    unit_of: np.ndarray,
    texts: dict[int, bytes],
    matched: dict[int, np.ndarray],
    n: int,
) -> None:
    """Match each unit's text once; the lines of a matching unit match."""
    units = list(texts)
    found = matcher.match_many(field, list(texts.values()))
    _mark([(units[i], positions) for i, positions in found], unit_of, matched)


def _posters_matching(
    matcher: RuleMatcher,
    data: np.ndarray,
    poster: tuple[np.ndarray, np.ndarray],
    lines: ChunkLines,
    first: np.ndarray,
) -> list[tuple[int, list[int]]]:
    """(unit, rule positions) of the poster units some rule matches. A poster is matched
    once a range: the same From hash is the same text (`RuleMatcher.poster_memo`)."""
    keys = lines.poster[first].tolist()
    memo = matcher.poster_memo
    new = [i for i, k in enumerate(keys) if k not in memo]
    if new:
        at = lines.line[first[new]]
        found = dict(matcher.match_many("poster", texts_of(data, poster[0][at], poster[1][at])))
        for j, i in enumerate(new):
            memo[keys[i]] = found.get(j, [])
    return [(i, memo[k]) for i, k in enumerate(keys) if memo[k]]


def _mark(
    found: list[tuple[int, list[int]]], unit_of: np.ndarray, matched: dict[int, np.ndarray]
) -> None:
    """The lines of the units each rule matched, added to the rule's lines."""
    units_of_rule: dict[int, list[int]] = {}
    for unit, positions in found:
        for position in positions:
            units_of_rule.setdefault(position, []).append(unit)
    size = int(unit_of.max()) + 1 if len(unit_of) else 0
    for position, hit_units in units_of_rule.items():
        hit = np.zeros(size, bool)
        hit[hit_units] = True
        mask = hit[unit_of]
        matched[position] = matched[position] | mask if position in matched else mask


def texts_of(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> list[bytes]:
    """The spans' bytes (UTF-8 as stored: RE2 reads them as they are)."""
    raw = buf.data  # no copy of the chunk: each span copied on its own
    spans = zip(start.tolist(), end.tolist(), strict=True)
    return [raw[a:z].tobytes() for a, z in spans]
