"""Scaling out by configuration alone: the same definitions on Dagster's Celery executor.

A real Redis on loopback (Debian's redis-server, started here on a free port) is the
broker and result backend; a `dagster-celery` worker process executes the steps. The
runs are launched with `dagster job execute -m assets` and USENET_INDEXER_EXECUTOR=celery,
nothing else changed, and must write the same catalog as an in-process run.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from assets.launch import prepare_home, register
from assets.partitions import ranges_by_group
from assets.resources import CorpusResource
from tests.corpora import generate
from tests.dagster_runs import in_process_defs, registered
from tests.servers import free_port, start, stop_group, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(600)]

REDIS = shutil.which("redis-server")
BIN = Path(sys.executable).parent


def _redis_pong(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
        s.sendall(b"PING\r\n")
        return s.recv(16).startswith(b"+PONG")


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    if REDIS is None:
        pytest.skip("redis-server is not installed (scripts/setup.sh --dev installs it)")
    port = free_port()
    proc = start(
        [
            REDIS,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: _redis_pong(port), f"redis on port {port}", seconds=20)
        yield f"redis://127.0.0.1:{port}"
    finally:
        stop_group(proc)


def _releases(catalog: Path) -> list[str]:
    rows = pq.read_table(catalog / "releases").to_pylist()
    return sorted(repr(sorted(r.items())) for r in rows)


def test_partitions_run_on_a_celery_worker(redis_url: str, tmp_path: Path) -> None:
    # the corpus in one shared location: every worker sees it
    demo = generate(
        tmp_path / "demo", groups=2, articles=1_500, seed=4, range_size=1_000, chunk=500
    )
    corpus = demo.corpus
    catalog = tmp_path / "catalog"
    home = prepare_home(tmp_path / "dagster")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        register(instance, CorpusResource(url=corpus))
        keys = list(instance.get_dynamic_partitions("ranges"))
    refs = next(iter(ranges_by_group(keys).values()))[:2]
    env = dict(
        os.environ,
        DAGSTER_HOME=str(home),
        USENET_INDEXER_CORPUS=corpus,
        USENET_INDEXER_CATALOG=str(catalog),
        USENET_INDEXER_EXECUTOR="celery",
        USENET_INDEXER_CELERY_BROKER=f"{redis_url}/0",
        USENET_INDEXER_CELERY_BACKEND=f"{redis_url}/1",
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # the worker execs `celery`
    )
    worker_config = tmp_path / "celery.yaml"
    worker_config.write_text(
        json.dumps(
            {"execution": {"config": {"broker": f"{redis_url}/0", "backend": f"{redis_url}/1"}}}
        )
    )
    worker_log = tmp_path / "worker.log"
    with open(worker_log, "wb") as log:
        worker = start(
            [
                str(BIN / "dagster-celery"),
                "worker",
                "start",
                "-A",
                "dagster_celery.app",
                "-y",
                str(worker_config),
                "-n",
                "indexer-test",
            ],
            log,
            cwd=tmp_path,
            env=env,
        )
        try:
            for ref in refs:
                key = f"{ref.group}|{ref.name}"
                done = subprocess.run(
                    [
                        str(BIN / "dagster"),
                        "job",
                        "execute",
                        "-m",
                        "assets",
                        "-j",
                        "index_job",
                        "--tags",
                        json.dumps({"dagster/partition": key}),
                    ],
                    cwd=tmp_path,
                    env=env,
                    capture_output=True,
                    timeout=300,
                )
                output = done.stdout.decode() + done.stderr.decode()
                assert done.returncode == 0, output[-3000:]
                assert 'Submitting celery task for step "header_pass"' in output
        finally:
            stop_group(worker)
    assert "Task execute_plan" in worker_log.read_text(errors="replace")

    # the same partitions in-process give the same releases
    local = tmp_path / "local"
    defs = in_process_defs(corpus, str(local))
    with registered(corpus) as instance:
        for ref in refs:
            job = defs.resolve_job_def("index_job")
            assert job.execute_in_process(
                instance=instance, partition_key=f"{ref.group}|{ref.name}"
            ).success
    assert _releases(catalog) == _releases(local)
