"""`usenet-indexer health` in a subprocess against `serve-nntp --gone` in another, and the
sweep as a real Dagster run: the release_health asset, health_job and health_schedule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from assets import build_defs
from assets.health import HEALTH_JOB, release_health
from assets.launch import prepare_home
from assets.resources import HOST_ENV, CatalogResource, CorpusResource, NNTPResource
from assets.schedules import health_schedule
from pipelines.nntpserver.ports import free_port, wait_port
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.dagster_runs import folder_instance
from tests.health_data import World, copy_catalog, health_world, releases_of, verdicts
from tests.servers import start, stop_group

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return health_world(tmp_path_factory.mktemp("health"))


def test_the_command_sweeps_against_serve_nntp_with_gone_articles(
    world: World, tmp_path: Path
) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    releases = sorted(releases_of(catalog, world.now).values(), key=lambda r: r.release_key)
    taken = releases[:4]
    gone = tmp_path / "gone.txt"
    gone.write_text("".join(f"<{m}>\n" for r in taken for m in r.message_ids))
    port = free_port()
    with open(tmp_path / "serve.log", "wb") as log:
        server = start(
            [sys.executable, "-m", "cli.commands.serve_nntp", "serve-nntp", world.corpus,
             "--port", str(port), "--gone", str(gone)],
            log, cwd=ROOT,
        )  # fmt: skip
        try:
            wait_port(port, 60)
            cmd = [sys.executable, "-m", "cli.main", "health", "--catalog", catalog, "--server",
                   f"127.0.0.1:{port}", "--connections", "2", "--stat-timeout", "5"]  # fmt: skip
            first = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
            again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
        finally:
            stop_group(server)
    assert first.returncode == 0, first.stderr
    total = len(releases)
    assert (
        f"checked {total:,} of {total:,} due releases: {total - 4:,} healthy, 0 broken, 4 dead"
        in first.stdout
    )
    assert "ended: done" in first.stdout
    found = verdicts(catalog)
    assert {k for k, v in found.items() if v == "dead"} == {r.release_key for r in taken}
    assert again.returncode == 0 and "checked 0 of 0 due releases" in again.stdout


def test_the_command_refuses_without_a_server(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "health", "--catalog", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "--server" in done.stderr


def test_the_schedule_asks_for_a_sweep_and_the_job_runs_it(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(HOST_ENV, raising=False)
    catalog = copy_catalog(world, tmp_path / "cat")
    total = len(releases_of(catalog, world.now))
    server = NNTPServer(world.corpus, options=ServerOptions())
    with server, folder_instance(prepare_home(tmp_path / "home")) as instance:
        nntp = NNTPResource(host="127.0.0.1", port=server.port, connections=2)
        with dg.build_schedule_context(instance=instance, resources={"nntp": nntp}) as context:
            assert isinstance(health_schedule(context), dg.RunRequest)
        unset = {"nntp": NNTPResource()}
        with dg.build_schedule_context(instance=instance, resources=unset) as context:
            skip = health_schedule(context)
        assert isinstance(skip, dg.SkipReason) and "no news server" in str(skip.skip_message)
        defs = build_defs(
            resource_overrides={
                "corpus": CorpusResource(url=world.corpus),
                "catalog": CatalogResource(url=catalog),
                "nntp": nntp,
            },
            executor=dg.in_process_executor,
        )
        result = defs.resolve_job_def("health_job").execute_in_process(instance=instance)
        assert result.success
        (mat,) = result.asset_materializations_for_node(release_health.op.name)
        # the releases are years old by the clock: every one is due, none is young
        assert mat.metadata["checked"].value == total
        assert mat.metadata["verdict/healthy"].value == total
        assert mat.metadata["ended"].value == "done"
        assert len(verdicts(catalog)) == total
        # a sweep in flight: the next tick waits for it
        status = dg.DagsterRunStatus.STARTED
        instance.add_run(dg.DagsterRun(job_name=HEALTH_JOB, status=status))
        with dg.build_schedule_context(instance=instance, resources={"nntp": nntp}) as context:
            skip = health_schedule(context)
        assert isinstance(skip, dg.SkipReason) and "still queued" in str(skip.skip_message)
