"""The article pass in Dagster: the release_probes asset of a range, from stored bodies, and
the probe sensor asking for what is due."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq

from assets.partitions import range_key
from assets.probes import probe_sensor
from assets.resources import CatalogResource
from pipelines.corpus.layout import RangeRef
from pipelines.generate import GenerateConfig
from pipelines.probe.spans import spans
from tests.corpora import replayed
from tests.dagster_runs import in_process_defs, registered


def test_the_asset_probes_a_range_and_the_sensor_asks_for_the_rest(tmp_path: Path) -> None:
    config = GenerateConfig(groups=1, articles=20_000, seed=5, range_size=10_000, chunk=2_500)
    gen, _ = replayed(tmp_path / "gen", tmp_path / "cat", config)
    catalog = str(tmp_path / "cat")
    defs = in_process_defs(gen.corpus, catalog)
    todo = spans(catalog)
    assert len(todo) >= 2
    with registered(gen.corpus) as instance:
        resources = {"catalog": CatalogResource(url=catalog)}
        # entered and left: a sensor context left open keeps a weakref to this instance
        # that later tests' contexts trip over
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            asked = probe_sensor(context)
        keys = [r.partition_key for r in asked.run_requests]
        assert keys == [range_key(RangeRef(s.group, s.first, s.last)) for s in todo]
        job = defs.resolve_job_def("probe_job")
        result = job.execute_in_process(
            instance=instance, partition_key=keys[0],
            run_config={"ops": {"release_probes": {"config": {"bodies": str(gen.out)}}}},
        )  # fmt: skip
        assert result.success
        (mat,) = result.asset_materializations_for_node("release_probes")
        assert mat.metadata["spans"].value == 1, mat.metadata
        rows = pq.read_table(
            Path(catalog)
            / "release_probes"
            / todo[0].group
            / f"{todo[0].first}-{todo[0].last}.parquet"
        )
        assert rows.num_rows == mat.metadata["releases"].value
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            again = probe_sensor(context)
        assert [r.partition_key for r in again.run_requests] == keys[1:]
