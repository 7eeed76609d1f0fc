"""Run monitoring: a run SIGKILLed mid-range has its group freed and its range redone.

The run is real: `execute_job` in a process group of its own (tests/fixtures/
stall_location.py, as `dagster job execute` runs one), on an instance in a folder with the
dagster.yaml the main job writes, its step in a process of its own (the multiprocess
executor) or in the run's. Its catalog is `stall://` (tests/fixtures/stall_fs.py), the
local folder, where one chosen rename never happens: the run is caught at a known point of
its range's writes, without timing, and SIGKILLed. The watchdog and the index sensor are
then evaluated on that instance, and the redo's catalog is compared with the one
undisturbed runs wrote.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from assets.launch import prepare_home, register
from assets.partitions import RANGES, ranges_by_group
from assets.resources import CatalogResource, CorpusResource, RulesResource
from assets.sensors import busy_groups, index_sensor
from assets.tags import KIND_TAG
from assets.watchdog import (
    GRACE_SECONDS,
    HEARTBEAT_TAG,
    LEASE_SECONDS,
    LOST_TAG,
    WORKER_TAG,
    Worker,
    interrupted,
    lost_reason,
    process_alive,
    process_started,
    run_watchdog,
    this_host,
)
from pipelines.catalog.partitions import list_group
from pipelines.corpus.fs import open_fs
from pipelines.index.rules import Rules
from pipelines.index.schedule import GroupSchedule
from tests.corpora import generate
from tests.dagster_runs import folder_instance, in_process_defs, registered
from tests.servers import start, wait_until
from tests.test_assets import COMPARED, _content

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("watchdog") / "demo"
    return generate(out, groups=1, articles=2_000, seed=17, range_size=1_000, chunk=500).corpus


@pytest.fixture(scope="module")
def straight(corpus: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The catalog undisturbed runs write, range after range."""
    catalog = str(tmp_path_factory.mktemp("straight") / "catalog")
    defs = in_process_defs(corpus, catalog)
    with registered(corpus) as instance:
        for key in instance.get_dynamic_partitions(RANGES.name or "ranges"):
            job = defs.resolve_job_def("index_job")
            assert job.execute_in_process(instance=instance, partition_key=key).success
    return catalog


def _tick(instance: dg.DagsterInstance, catalog: str) -> list[dg.RunRequest]:
    resources = {"catalog": CatalogResource(url=catalog), "rules": RulesResource()}
    with dg.build_sensor_context(instance=instance, resources=resources) as context:
        result = index_sensor(context)
    assert isinstance(result, dg.SensorResult)
    return list(result.run_requests or [])


def _killed_run(
    home: Path, corpus: str, catalog: str, key: str, stall: str, executor: str, kill: str
) -> None:
    """A run of one partition in a process of its own, stopped once a write whose target
    contains `stall` is about to be renamed into place, then SIGKILLed: its whole process
    group (`kill="group"`), or only the process that writes (`"step"`, the OOM killer's)."""
    stalled = home.parent / "stalled"
    env = dict(
        os.environ,
        DAGSTER_HOME=str(home),
        PYTHONPATH=str(ROOT),
        USENET_INDEXER_CORPUS=corpus,
        USENET_INDEXER_CATALOG=f"stall://{catalog}",
        USENET_INDEXER_EXECUTOR=executor,
        USENET_INDEXER_TEST_STALL=stall,
        USENET_INDEXER_TEST_STALLED=str(stalled),
    )
    command = [sys.executable, "-m", "tests.fixtures.stall_location", key]
    log_path = home.parent / "run.log"
    with open(log_path, "wb") as log:
        proc = start(command, log, cwd=ROOT, env=env)
        try:
            wait_until(lambda: stalled.exists() or proc.poll() is not None, "the run", 240)
            assert stalled.exists(), log_path.read_text()[-3000:]
            if kill == "step":
                os.kill(int(stalled.read_text().split()[0]), signal.SIGKILL)
                proc.wait(120)  # its run worker lives on: it fails the run and ends
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stall", "executor", "kill"),
    [
        # every table and the range log written, the snapshot not placed; the step's
        # process killed, its run worker fails the run
        pytest.param("/_window/", "multiprocess", "step", id="step-before-the-snapshot"),
        # the first table's file written under its temporary name, not placed; the run's
        # one process killed (a machine lost): the watchdog fails the run
        pytest.param("/releases/", "in_process", "group", id="run-mid-first-table"),
    ],
)
def test_a_run_killed_mid_range_has_its_group_freed_and_its_range_redone(
    corpus: str, straight: str, tmp_path: Path, stall: str, executor: str, kill: str
) -> None:
    home = prepare_home(tmp_path / "home")
    catalog = str(tmp_path / "catalog")
    defs = in_process_defs(corpus, catalog)
    with folder_instance(home) as instance:
        register(instance, CorpusResource(url=corpus))
        by_group = ranges_by_group(instance.get_dynamic_partitions(RANGES.name or "ranges"))
        ((group, refs),) = by_group.items()
        keys = [f"{group}|{r.name}" for r in refs]
        last = refs[-1]
        # the group's ranges before the last one, as the undisturbed runs left them
        shutil.copytree(straight, catalog)
        fs, root = open_fs(catalog)
        for path in fs.find(root):
            if path.rsplit("/", 1)[-1].startswith(last.name + "."):
                fs.rm(path)

        _killed_run(home, corpus, catalog, keys[-1], stall, executor, kill)
        (record,) = instance.get_run_records(dg.RunsFilter(tags={"dagster/partition": keys[-1]}))
        killed = record.dagster_run
        assert WORKER_TAG in killed.tags
        # what the killed run left: its range is not done, a temporary file never renamed
        due = GroupSchedule(catalog, refs, Rules()).next_due()
        assert due is not None and due.ref == last and due.why == "not indexed"
        leftovers = [p for p in fs.find(root) if ".tmp-" in p and last.name in p]
        assert leftovers
        assert all(p.path not in leftovers for p in list_group(fs, root, "releases", group))

        with dg.build_sensor_context(instance=instance) as context:
            watchdog = run_watchdog(context)
        assert isinstance(watchdog, dg.SkipReason)
        if kill == "group":
            # nothing is left to report the run's end: STARTED, its group busy for good,
            # until the watchdog finds its process gone, fails it and frees the group
            assert killed.status == dg.DagsterRunStatus.STARTED
            assert killed.run_id in str(watchdog.skip_message)
            lost = instance.get_run_by_id(killed.run_id)
            assert lost is not None and lost.status == dg.DagsterRunStatus.FAILURE
            assert "is gone" in lost.tags[LOST_TAG]
            assert interrupted(instance, lost).startswith("lost: ")
        else:
            # the run worker failed the run itself: nothing lost, but not a failure of
            # the range's own either
            assert killed.status == dg.DagsterRunStatus.FAILURE
            assert "no lost run" in str(watchdog.skip_message)
            assert interrupted(instance, killed) == "its step's process died"
        assert busy_groups(instance) == {}

        # the index sensor asks for the range again; the redo gives the undisturbed
        # runs' catalog
        (request,) = _tick(instance, catalog)
        assert request.partition_key == keys[-1]
        assert (request.run_key or "").endswith(f"@redo-{killed.run_id}")
        job = defs.resolve_job_def("index_job")
        redo = job.execute_in_process(instance=instance, partition_key=keys[-1], tags=request.tags)
        assert redo.success
        assert _tick(instance, catalog) == []
    for table in COMPARED:
        assert _content(catalog, table) == _content(straight, table), table


def test_a_run_elsewhere_is_lost_when_its_heartbeat_stops() -> None:
    now = time.time()
    with dg.DagsterInstance.ephemeral() as instance:

        def run(worker: Worker, beat: float) -> dg.DagsterRun:
            tags = {WORKER_TAG: worker.tag(), HEARTBEAT_TAG: str(int(beat)), KIND_TAG: "index"}
            return dg.DagsterRun(job_name="index_job", status=dg.DagsterRunStatus.STARTED,
                                 tags=tags)  # fmt: skip

        elsewhere = Worker("another-host", 4242, "")
        assert lost_reason(instance, run(elsewhere, now - 5), now, this_host()) is None
        why = lost_reason(instance, run(elsewhere, now - LEASE_SECONDS - 5), now, this_host())
        assert why is not None and "no heartbeat from another-host" in why

        # here: a live process is not lost, a gone one is, and so is a reused pid
        me = Worker(this_host(), os.getpid(), process_started(os.getpid()))
        assert lost_reason(instance, run(me, now - 1000), now, this_host()) is None
        reused = Worker(me.host, me.pid, "1")
        # no run worker recorded: a step just gone may be a run about to end, for a while
        assert lost_reason(instance, run(reused, now - 5), now, this_host()) is None
        why = lost_reason(instance, run(reused, now - GRACE_SECONDS - 5), now, this_host())
        assert why is not None and "is gone" in why
    assert process_alive(os.getpid()) and not process_alive(2**22 + 1)
    assert Worker.parse(me.tag()) == me and Worker.parse("garbage") is None


def test_a_lease_names_the_process_and_beats(tmp_path: Path) -> None:
    """A real step's lease: the worker tag names its process, the heartbeat is set."""
    from tests.dagster_runs import in_process_defs as defs_over

    demo = generate(tmp_path / "g", groups=1, articles=600, seed=3, range_size=1_000, chunk=500)
    defs = defs_over(demo.corpus, str(tmp_path / "catalog"))
    with registered(demo.corpus) as instance:
        key = instance.get_dynamic_partitions(RANGES.name or "ranges")[0]
        result = defs.resolve_job_def("index_job").execute_in_process(
            instance=instance, partition_key=key
        )
        assert result.success
        run = instance.get_run_by_id(result.run_id)
        assert run is not None
        worker = Worker.parse(run.tags[WORKER_TAG])
        assert worker == Worker(this_host(), os.getpid(), process_started(os.getpid()))
        assert abs(float(run.tags[HEARTBEAT_TAG]) - time.time()) < 600


def test_which_failed_runs_did_not_get_to_finish() -> None:
    with dg.DagsterInstance.ephemeral() as instance:

        def failed(**tags: str) -> dg.DagsterRun:
            run = dg.DagsterRun(job_name="index_job", status=dg.DagsterRunStatus.FAILURE, tags=tags)
            instance.add_run(run)
            return run

        assert interrupted(instance, failed(**{LOST_TAG: "its process is gone"}))
        for reason in ("UNEXPECTED_TERMINATION", "START_TIMEOUT", "RUN_WORKER_RESTART"):
            assert interrupted(instance, failed(**{"dagster/failure_reason": reason}))
        # a step that raised (no crashed process): it would fail the same way again
        assert interrupted(instance, failed(**{"dagster/failure_reason": "STEP_FAILURE"})) == ""
        assert interrupted(instance, failed(**{"dagster/failure_reason": "RUN_EXCEPTION"})) == ""
