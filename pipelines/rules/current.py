"""The rule set a pass runs with: the configured one (`--rules FILE`, the Dagster
resource) with the operator's rules the catalog holds (`store`) as its `filters`.

Both the range scheduler and the range indexer ask here, so a range's fingerprint and
the one it is compared with agree; the indexer records the set (`record_rules`) before a
range runs with it, so that a later change can tell what changed.
"""

from __future__ import annotations

from dataclasses import replace

from pipelines.index.rules import Rules
from pipelines.rules.store import load_rules


def catalog_rules(catalog: str, rules: Rules, record: bool = False) -> Rules:
    operator = tuple(r.with_changes(note="", created=0) for r in load_rules(catalog).operator)
    merged = rules if operator == rules.filters else replace(rules, filters=operator)
    if record and merged.filters:
        # the scheduler imports the indexer, which asks here: imported when first needed
        from pipelines.index.schedule import record_rules

        record_rules(catalog, merged)
    return merged
