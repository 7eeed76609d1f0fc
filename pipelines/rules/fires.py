"""Where would a rule fire? A scan of stored ranges that reads each file's subject (and
each poster, each message-id) once, without indexing anything: Voyager's way of redoing
only what a changed rule touches.

The scan sees what the header pass's operator step sees, and a little more: the live
lines (not crossposts owned elsewhere, not garbage posters), each subject class through
the same representative line (`hits.class_reps`), every class the pass could keep. So a
range where the scan finds no match is one where the pass finds none: a rule that does
not fire there cannot change it.

What a scan found is kept per rule (its field, pattern and group: what decides a match)
under `_rules/fires/<key>.json`: per group, the ranges scanned and those where it matched.
The range scheduler reads it (`fires_in`); a range the record does not cover counts as
one where the rule may fire.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from kernels import scan as sc
from kernels.line_fields import line_fields
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.corpus.reader import Chunk, CorpusReader, RangeInfo
from pipelines.index.backbones import CorpusBackbones
from pipelines.index.parse import group_context
from pipelines.index.rules import Rules
from pipelines.index.subjects import share_subjects
from pipelines.rules.current import current_draft
from pipelines.rules.hits import class_reps, subject_texts, texts_of
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import Rule

FIRES_FOLDER = "_rules/fires"


def rule_key(rule: Rule | dict[str, Any]) -> str:
    doc = rule.to_json() if isinstance(rule, Rule) else rule
    what = {k: doc.get(k) for k in ("field", "pattern", "literal", "group")}
    return hashlib.sha1(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def _path(root: str, key: str) -> str:
    return f"{root.rstrip('/')}/{FIRES_FOLDER}/{key}.json"


def _read(catalog: str, key: str) -> dict[str, Any]:
    draft = current_draft()
    if draft is not None and key in draft.fires:
        return draft.fires[key]
    fs, root = open_fs(catalog)
    try:
        doc = json.loads(fs.cat_file(_path(root, key)))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def record_of(catalog: str, rule: Rule | dict[str, Any]) -> dict[str, Any]:
    """What scans found for the rule: {group: {"scanned": [firsts], "fired": [firsts]}}."""
    return _read(catalog, rule_key(rule))


def fires_in(catalog: str, rule: dict[str, Any], group: str, first: int) -> bool | None:
    """Does the rule match in the group's range starting at `first`? None: not scanned."""
    seen = _read(catalog, rule_key(rule)).get(group)
    if not isinstance(seen, dict) or first not in seen.get("scanned", []):
        return None
    return first in seen.get("fired", [])


def chunk_matches(chunk: Chunk, group: str, priority: list[str], rules: Rules,
                  matcher: RuleMatcher) -> set[int]:  # fmt: skip
    """The positions (in `matcher.rules`) of the rules matching a live line of the chunk."""
    ix = chunk.lines
    data = np.frombuffer(chunk.data, np.uint8)
    fs, fe = ix.field_start, ix.field_end
    ctx = group_context(group, priority, rules)
    lf = line_fields(data, fs, fe, ctx.group_hashes)
    ok = ix.status == sc.OK
    live = ok & ~((lf.owner >= 0) & (lf.owner != ctx.index))
    if len(ctx.garbage_posters):
        live &= ~np.isin(lf.poster, ctx.garbage_posters)
    lrows = np.flatnonzero(live)
    found: set[int] = set()
    fields = matcher.fields()
    if "subject" in fields and len(lrows):
        subj = share_subjects(data, fs[:, sc.F_SUBJECT][lrows], fe[:, sc.F_SUBJECT][lrows])
        rep = class_reps(subj.row, lrows)
        # every class but the random subjects' (the pass drops those before its rules)
        parsed = np.flatnonzero((rep >= 0) & ~subj.table.random_subject[: len(rep)])
        texts = subject_texts(data, (fs[:, sc.F_SUBJECT], fe[:, sc.F_SUBJECT]), parsed, rep[parsed])
        found |= _matching(matcher, "subject", texts.values())
    for field, k in (("poster", sc.F_FROM), ("message_id", sc.F_MESSAGE_ID)):
        if field in fields and len(lrows):
            lines = lrows
            if field == "poster":
                _, first = np.unique(lf.poster[lrows], return_index=True)
                lines = lrows[first]
            found |= _matching(matcher, field, texts_of(data, fs[lines, k], fe[lines, k]))
    return found


def _matching(matcher: RuleMatcher, field: str, texts: Iterable[bytes]) -> set[int]:
    return {p for _, positions in matcher.match_many(field, list(texts)) for p in positions}


def scan_fires(
    corpus: str,
    catalog: str,
    rules: Rules,
    changed: list[Rule],
    ranges: int | None = None,
    on_range: Callable[[str, int], None] | None = None,
    records: dict[str, dict[str, Any]] | None = None,
) -> dict[str, dict[str, list[int]]]:
    """Scan the stored complete ranges (the last `ranges` of each group, or all) for where
    each changed rule matches; {rule id: {group: [range firsts]}}. Recorded in the
    catalog, or (`records`) into that dict by rule key, for a draft."""
    backbones = CorpusBackbones(corpus)  # each group as its primary backbone stored it
    groups = backbones.groups()
    priority = rules.priority(groups)
    out: dict[str, dict[str, list[int]]] = {r.id: {} for r in changed}
    probe = [r.with_changes(state="on") for r in changed]
    scanned: dict[str, dict[str, set[int]]] = {}  # rule key -> group -> range firsts
    for group in priority:
        matcher = RuleMatcher(probe, group)
        if not matcher.rules or group not in groups:
            continue
        reader = backbones.reader(catalog, group)
        infos = [i for i in reader.ranges(group) if i.complete]
        for info in infos[-ranges:] if ranges else infos:
            hit = _range_matches(reader, info, group, priority, rules, matcher)
            for position, rule in enumerate(matcher.rules):
                scanned.setdefault(rule.id, {}).setdefault(group, set()).add(info.ref.first)
                if position in hit:
                    out[rule.id].setdefault(group, []).append(info.ref.first)
            if on_range is not None:
                on_range(group, info.ref.first)
    for rule in probe:
        _record(catalog, rule, scanned.get(rule.id, {}), out[rule.id], records)
    return out


def _range_matches(reader: CorpusReader, info: RangeInfo, group: str, priority: list[str],
                   rules: Rules, matcher: RuleMatcher) -> set[int]:  # fmt: skip
    found: set[int] = set()
    for chunk in reader.read_range(info):
        found |= chunk_matches(chunk, group, priority, rules, matcher)
    return found


def _record(
    catalog: str,
    rule: Rule,
    scanned: dict[str, set[int]],
    fired: dict[str, list[int]],
    records: dict[str, dict[str, Any]] | None,
) -> None:
    """Add what a scan saw to the rule's record (a range scanned again replaces its entry)."""
    fs, root = open_fs(catalog)
    key = rule_key(rule)
    doc = _read(catalog, key) if records is None else records.setdefault(key, {})
    for group, firsts in scanned.items():
        seen = doc.setdefault(group, {"scanned": [], "fired": []})
        seen["scanned"] = sorted({*seen["scanned"], *firsts})
        seen["fired"] = sorted(set(seen["fired"]) - firsts | set(fired.get(group, [])))
    if records is None:
        atomic_put(fs, _path(root, key), json.dumps(doc).encode())
