"""The asset graph reads as the pipeline runs: the header pass's outputs, then the article
pass, the merges, the health sweep and the verdicts; every automation runs by itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from assets import build_defs

HEADER_PASS = {
    "releases", "release_files", "pending_releases", "probe_candidates", "rule_counts",
    "rule_samples", "ranges", "window_snapshots",
}  # fmt: skip


def _parents(graph: dg.AssetGraph, asset: str) -> set[str]:
    return {k.to_user_string() for k in graph.get(dg.AssetKey(asset)).parent_keys}


def test_each_stage_depends_on_the_ones_it_reads() -> None:
    graph = build_defs().resolve_asset_graph()
    assert _parents(graph, "release_probes") == {"probe_candidates", "pending_releases"}
    assert _parents(graph, "release_merges") == {"release_probes"}
    assert _parents(graph, "release_health") == {"releases", "release_merges"}
    assert _parents(graph, "release_verdicts") == {"release_merges", "release_health"}
    assert _parents(graph, "release_ids") == {"release_merges"}
    # the header pass starts from the corpus; compaction and the catalog read its tables
    assert all(_parents(graph, a) == set() for a in HEADER_PASS)
    assert _parents(graph, "catalog_views") == {"compacted"}


def test_a_group_merge_reads_every_probed_range() -> None:
    """release_merges is per group, release_probes per (group, range): the identity mapping
    Dagster would infer names range partitions that never exist."""
    graph = build_defs().resolve_asset_graph()
    merges, probes = dg.AssetKey("release_merges"), dg.AssetKey("release_probes")
    mapping = graph.get_partition_mapping(merges, probes)
    assert isinstance(mapping, dg.AllPartitionMapping)
    health = dg.AssetKey("release_health")
    assert isinstance(graph.get_partition_mapping(health, merges), dg.AllPartitionMapping)


def test_every_sensor_and_schedule_runs_by_itself_in_a_new_instance() -> None:
    defs = build_defs()
    sensors = {s.name: s.default_status for s in defs.sensors or []}
    schedules = {s.name: s.default_status for s in defs.schedules or []}
    assert set(sensors) == {
        "corpus_sensor", "index_sensor", "history_sensor", "run_watchdog", "probe_sensor",
        "merge_sensor",
    }  # fmt: skip
    assert set(schedules) == {
        "tail_schedule",
        "health_schedule",
        "judge_schedule",
        "spots_schedule",
        "ids_schedule",
        "predb_schedule",
    }
    assert set(sensors.values()) == {dg.DefaultSensorStatus.RUNNING}, sensors
    assert set(schedules.values()) == {dg.DefaultScheduleStatus.RUNNING}, schedules


@pytest.mark.slow
def test_a_fresh_instance_lists_them_running(tmp_path: Path) -> None:
    """What `dagster sensor list` and `dagster schedule list` say of a new DAGSTER_HOME:
    nobody switched anything on."""
    dagster = Path(sys.executable).with_name("dagster")
    env = dict(os.environ, DAGSTER_HOME=str(tmp_path))
    states = {}
    for kind in ("sensor", "schedule"):
        done = subprocess.run(
            [str(dagster), kind, "list", "-m", "assets"], env=env, capture_output=True,
            text=True, timeout=300, check=True,
        )  # fmt: skip
        states.update(re.findall(r"(?:Sensor|Schedule): (\w+) \[(\w+)\]", done.stdout))
    assert {"index_sensor", "probe_sensor", "merge_sensor", "judge_schedule"} <= set(states)
    assert set(states.values()) == {"RUNNING"}, states


def test_the_judge_schedule_waits_for_its_run_in_flight(tmp_path: Path) -> None:
    from assets.judge import judge_schedule
    from tests.dagster_runs import folder_instance

    with folder_instance(tmp_path) as instance:
        with dg.build_schedule_context(instance=instance) as context:
            assert isinstance(judge_schedule(context), dg.RunRequest)
            # a compaction run in flight (the same kind) does not hold it back
            instance.add_run(
                dg.DagsterRun(job_name="compact_job", status=dg.DagsterRunStatus.STARTED)
            )
            assert isinstance(judge_schedule(context), dg.RunRequest)
            instance.add_run(
                dg.DagsterRun(job_name="judge_job", status=dg.DagsterRunStatus.STARTED)
            )
            skip = judge_schedule(context)
        assert isinstance(skip, dg.SkipReason) and "still queued or running" in str(
            skip.skip_message
        )
