"""The PreDB scan as a Dagster asset: one cycle, its figures as metadata."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipelines.predb.importer import import_files
from tests.predb_catalog import MIB, files, pres_file, release, write_range


def test_the_asset_runs_a_cycle_and_shows_its_counts(tmp_path: Path) -> None:
    from assets.predb import pre_scans
    from assets.resources import CatalogResource

    cat = str(tmp_path / "cat")
    title = "Asset.Run.2020.720p.WEB.h264-DAG"
    import_files(cat, [pres_file(tmp_path / "p.jsonl", [{"title": title, "time": 1_600_000_000}])])
    write_range(
        cat,
        0,
        999,
        [release("r", title, 100 * MIB, 0)],
        [],
        files("r", [title + ".rar"], 100 * MIB),
    )
    result = dg.materialize([pre_scans], resources={"catalog": CatalogResource(url=cat)})
    (mat,) = result.asset_materializations_for_node("pre_scans")
    meta = {k: v.value for k, v in mat.metadata.items()}
    assert meta["renamed"] == 1 and meta["outcome/complete"] == 1
    assert meta["method/title:release"] == 1 and meta["waiting"] == 0
