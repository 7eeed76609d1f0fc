"""What the live loop's stages made of a catalog, in a form two runs can be compared by:
the shown releases' names, the merges, each release's newest health verdict and the
standing verdicts (tests/test_live_stages.py, tests/test_live_kill.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipelines.catalog.views import CatalogViews
from pipelines.health.store import newest_per_key, read_health
from pipelines.judge.store import current_verdicts
from pipelines.merge.store import merges


@dataclass(frozen=True)
class StageOutputs:
    named: frozenset[tuple[bytes, str]]  # (release key, name) of every release shown
    merges: frozenset[tuple[bytes, bytes]]  # (absorbed, into)
    health: frozenset[tuple[bytes, str | None]]  # each release's newest health verdict
    verdicts: frozenset[tuple[bytes, str]]  # standing verdicts


def stage_outputs(catalog: Path) -> StageOutputs:
    views = CatalogViews(str(catalog))
    views.refresh()
    try:
        rows = views.query("SELECT release_key, name FROM releases").to_pylist()
    finally:
        views.close()
    record = merges(str(catalog))
    health = newest_per_key(read_health(str(catalog)).rows)
    verdicts = current_verdicts(str(catalog))
    return StageOutputs(
        frozenset((r["release_key"], r["name"]) for r in rows),
        frozenset(zip(record["from_key"].to_pylist(), record["into_key"].to_pylist(), strict=True)),
        frozenset(
            zip(health["release_key"].to_pylist(), health["verdict"].to_pylist(), strict=True)
        ),
        frozenset(
            zip(verdicts["release_key"].to_pylist(), verdicts["rule"].to_pylist(), strict=True)
        ),
    )
