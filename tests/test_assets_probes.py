"""The article pass in Dagster: the release_probes asset of a range, from stored bodies, and
the probe sensor asking for what is due (and for nothing while no news server is set)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from assets.partitions import range_key
from assets.probes import probe_sensor
from assets.resources import HOST_ENV, CatalogResource, NNTPResource
from pipelines.corpus.layout import RangeRef
from pipelines.generate import GenerateConfig
from pipelines.probe.spans import spans
from tests.corpora import replayed
from tests.dagster_runs import in_process_defs, registered


def test_the_asset_probes_a_range_and_the_sensor_asks_for_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(HOST_ENV, raising=False)
    config = GenerateConfig(groups=1, articles=20_000, seed=5, range_size=10_000, chunk=2_500)
    gen, _ = replayed(tmp_path / "gen", tmp_path / "cat", config)
    catalog = str(tmp_path / "cat")
    defs = in_process_defs(gen.corpus, catalog)
    todo = spans(catalog)
    assert len(todo) >= 2
    with registered(gen.corpus) as instance:
        unset = {"catalog": CatalogResource(url=catalog), "nntp": NNTPResource()}
        # entered and left: a sensor context left open keeps a weakref to this instance
        # that later tests' contexts trip over
        with dg.build_sensor_context(instance=instance, resources=unset) as context:
            assert isinstance(probe_sensor(context), dg.SkipReason)  # no server to read from
        server = NNTPResource(host="news.invalid")  # never contacted: the sensor only plans
        resources = {"catalog": CatalogResource(url=catalog), "nntp": server}
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            asked = probe_sensor(context)
        assert isinstance(asked, dg.SensorResult)
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
        assert isinstance(again, dg.SensorResult)
        assert [r.partition_key for r in again.run_requests] == keys[1:]
