"""The `release_merges` asset in a real Dagster run: it merges its group's spans and says
what it did in its metadata; a second materialization finds nothing new."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipelines.merge.store import merges
from tests.dagster_runs import in_process_defs
from tests.merge_catalog import GROUP, MergeCatalog
from tests.test_merge_rules import per_file_upload, shown


def _metadata(result: dg.ExecuteInProcessResult) -> dict[str, object]:
    (event,) = result.asset_materializations_for_node("release_merges")
    return {k: getattr(v, "value", v) for k, v in event.metadata.items()}


def test_the_asset_merges_its_group(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path / "catalog"))
    holder, parts = per_file_upload(cat, "dag")
    cat.write()
    defs = in_process_defs(str(tmp_path / "corpus"), cat.root)
    job = defs.resolve_job_def("merge_job")
    with dg.DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions("groups", [GROUP])
        result = job.execute_in_process(instance=instance, partition_key=GROUP)
        assert result.success
        meta = _metadata(result)
        assert meta["spans"] == 1 and meta["merged_releases"] == 1
        assert meta["absorbed/par2"] == 3 and meta["waiting_spans"] == 0
        assert set(shown(cat.root)) == {holder}
        assert set(merges(cat.root, GROUP)["from_key"].to_pylist()) == set(parts)

        again = job.execute_in_process(instance=instance, partition_key=GROUP)
        assert again.success and _metadata(again)["spans"] == 0


def test_the_sensor_asks_for_groups_with_spans_ready(tmp_path: Path) -> None:
    from assets.merges import merge_sensor
    from assets.resources import CatalogResource

    cat = MergeCatalog(str(tmp_path / "catalog"))
    per_file_upload(cat, "sns")
    cat.waiting = {(0, 999)}
    cat.write()
    resources = {"catalog": CatalogResource(url=cat.root)}
    with dg.DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions("groups", [GROUP])
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            assert not merge_sensor(context).run_requests  # waits for the article pass
        cat.waiting = set()
        cat.write()
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            (request,) = merge_sensor(context).run_requests
        assert request.partition_key == GROUP and request.run_key == f"merge@{GROUP}@0-999"
