"""The operator's rule set as an asset: its config is the rule list (docs/RULES.md).

Materialized without config, `rule_set` reports the catalog's set: its version, how many
rules, and the rules that drop most with their share and drift as metadata. With
`rules` in its config (the operator's rules in order, as `pipelines.rules.model.Rule`'s
fields), it first makes the catalog's set that list, checked as every edit is (a refused
rule fails the run and changes nothing). The index sensor then redoes the ranges the
change touches, as `rules apply` does (after its scan; without one, a changed rule's
groups are redone whole).
"""

from typing import Any

import dagster as dg

from assets.resources import CatalogResource
from pipelines.rules.store import RuleRefused, load_rules, rule_counters, set_rules

RULES_GROUP = "rules"
TOP = 10  # rules shown in the metadata


class RuleConfig(dg.Config):
    id: str = ""  # a stored rule's id; empty: a new rule
    pattern: str
    field: str = "subject"  # subject | poster | message_id
    literal: bool = False
    group: str = ""  # regex of the groups it applies in; empty: every group
    action: str = "drop"  # drop | keep | watch
    state: str = "on"  # on | off | shadow
    note: str = ""


class RuleSetConfig(dg.Config):
    rules: list[RuleConfig] | None = None  # the operator's rules in order; none: as they are
    force: bool = False  # take a rule that matches a large share of recent headers
    who: str = "dagster"


def top_rules(counters: list[dict[str, Any]]) -> str:
    """The rules that dropped most, as a Markdown table."""
    rows = sorted(counters, key=lambda r: -r["dropped"])[:TOP]
    lines = ["| rule | state | dropped | share | today | drift |", "|---|---|---|---|---|---|"]
    for r in rows:
        drift = "-" if r["drift"] is None else f"{r['drift']:.2f}"
        name = r["id"] if r["builtin"] else f"{r['id']} `{r['pattern'][:40]}`"
        lines.append(f"| {name} | {r['state']} | {r['dropped']:,} | {r['share']:.1%} | "
                     f"{r['today']:,} | {drift} |")  # fmt: skip
    return "\n".join(lines)


@dg.asset(group_name=RULES_GROUP)
def rule_set(config: RuleSetConfig, catalog: CatalogResource) -> dg.MaterializeResult:
    """The operator's junk rules, in evaluation order, with what each dropped."""
    if config.rules is not None:
        try:
            set_rules(catalog.url, [r.model_dump() for r in config.rules], config.who,
                      config.force)  # fmt: skip
        except RuleRefused as exc:
            raise dg.Failure(description=f"rule set refused: {exc.reason}") from exc
    loaded = load_rules(catalog.url)
    counters = rule_counters(catalog.url)
    return dg.MaterializeResult(
        metadata={
            "version": loaded.fingerprint,
            "rules": len(loaded.rules),
            "operator_rules": len(loaded.operator),
            "shadow": sum(r.state == "shadow" for r in loaded.operator),
            "top_rules": dg.MetadataValue.md(top_rules(counters)),
        }
    )
