"""`rules apply`: make the catalog follow the stored rule set, redoing only what changed.

First the scan (`fires`) of every stored range a rule of the set applies to and has not
been scanned for (a new or changed rule: its record is keyed by what it matches), so
the range scheduler knows where each rule fires; then `replay`, which redoes the ranges
a change touches (`stale`) and every range after one redone. A rule's state or action
changing keeps its record: the scan is of what it matches, not of what it does.
"""

from __future__ import annotations

from collections.abc import Callable

from pipelines.index.backbones import CorpusBackbones
from pipelines.index.replay import ReplaySummary, replay
from pipelines.index.rules import Rules
from pipelines.rules.current import catalog_rules
from pipelines.rules.fires import record_of, scan_fires
from pipelines.rules.matcher import applies_in
from pipelines.rules.model import Rule


def unscanned(corpus: str, catalog: str, rules: list[Rule]) -> list[Rule]:
    """The rules (not off) some complete range of a group they apply to was not scanned for."""
    backbones = CorpusBackbones(corpus)  # each group as its primary backbone stored it
    ranges = {
        g: [i.ref for i in backbones.reader(catalog, g).ranges(g) if i.complete]
        for g in backbones.groups()
    }
    out = []
    for rule in rules:
        doc, record = rule.to_json(), record_of(catalog, rule)
        if rule.state == "off":
            continue
        for group, refs in ranges.items():
            scanned = set(record.get(group, {}).get("scanned", []))
            if applies_in(doc, group) and any(ref.first not in scanned for ref in refs):
                out.append(rule)
                break
    return out


def scan_unscanned(
    corpus: str,
    catalog: str,
    base: Rules,
    on_range: Callable[[str, int], None] | None = None,
) -> list[Rule]:
    """Scan where the rules not scanned yet fire, so the next header pass redoes only
    those ranges (not every range of their groups); the rules scanned. `live` runs it
    when the rule set changed (an admin page's edit), `apply_rules` always."""
    rules = catalog_rules(catalog, base)
    todo = unscanned(corpus, catalog, list(rules.filters))
    if todo:
        scan_fires(corpus, catalog, rules, todo, on_range=on_range)
    return todo


def apply_rules(
    corpus: str,
    catalog: str,
    base: Rules,
    progress: bool = False,
    on_range: Callable[[str, int], None] | None = None,
) -> tuple[list[Rule], ReplaySummary]:
    """Scan for the rules not scanned yet, then replay; (the rules scanned, the replay)."""
    todo = scan_unscanned(corpus, catalog, base, on_range)
    return todo, replay(corpus, catalog, base, progress=progress)
