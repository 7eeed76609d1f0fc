"""The rule set as a Dagster asset: its config makes the catalog's rule list (checked as
every edit is), its metadata shows the set's version and the rules that drop most."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from assets.resources import CatalogResource
from assets.rules import rule_set
from pipelines.rules import store


def _materialize(catalog: str, config: dict[str, object]) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        [rule_set],
        resources={"catalog": CatalogResource(url=catalog)},
        run_config={"ops": {"rule_set": {"config": config}}},
        raise_on_error=False,
    )


def _metadata(result: dg.ExecuteInProcessResult) -> dict[str, object]:
    (event,) = result.asset_materializations_for_node("rule_set")
    return {k: getattr(v, "value", v) for k, v in event.metadata.items()}


def test_config_sets_the_rule_list_and_metadata_shows_it(tmp_path: Path) -> None:
    catalog = str(tmp_path)
    kept = store.add_rule(catalog, "old", "cli")
    gone = store.add_rule(catalog, "gone", "cli")
    result = _materialize(catalog, {"rules": [
        {"pattern": "spammer@example\\.invalid", "field": "poster", "note": "fake poster"},
        {"id": kept.id, "pattern": "old", "state": "shadow"},
    ]})  # fmt: skip
    assert result.success
    rules = store.load_rules(catalog).operator
    assert [r.pattern for r in rules] == ["spammer@example\\.invalid", "old"]
    assert rules[1].id == kept.id and rules[1].state == "shadow"
    assert gone.id not in {r.id for r in rules}
    meta = _metadata(result)
    assert meta["operator_rules"] == 2 and meta["shadow"] == 1
    assert meta["version"] == store.load_rules(catalog).fingerprint
    assert "| rule | state | dropped |" in str(meta["top_rules"])
    assert store.load_rules(catalog).log[-1]["who"] == "dagster"


@pytest.mark.parametrize("bad", ["", "(", "a*"])
def test_a_refused_rule_fails_the_run_and_changes_nothing(tmp_path: Path, bad: str) -> None:
    catalog = str(tmp_path)
    store.add_rule(catalog, "old", "cli")
    before = store.load_rules(catalog)
    result = _materialize(catalog, {"rules": [{"pattern": "fine"}, {"pattern": bad}]})
    assert not result.success
    assert store.load_rules(catalog).operator == before.operator


def test_without_config_it_reports_the_set(tmp_path: Path) -> None:
    catalog = str(tmp_path)
    store.add_rule(catalog, "x\\d+y", "cli")
    result = _materialize(catalog, {})
    assert result.success and _metadata(result)["operator_rules"] == 1
