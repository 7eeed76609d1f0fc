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
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from assets import build_defs
from assets.launch import prepare_home, register
from assets.partitions import ranges_by_group
from assets.resources import CatalogResource, CorpusResource, RulesResource
from pipelines.generate import GenerateConfig, generate_corpus

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(600)]

REDIS = shutil.which("redis-server")
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _wait_redis(port: int, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"redis on port {port} did not answer")


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    if REDIS is None:
        pytest.skip("redis-server is not installed (scripts/setup.sh --dev installs it)")
    port = _free_port()
    proc = subprocess.Popen(
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
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_redis(port)
        yield f"redis://127.0.0.1:{port}"
    finally:
        _stop(proc)


def _releases(catalog: Path) -> list[str]:
    rows = pq.read_table(catalog / "releases").to_pylist()
    return sorted(repr(sorted(r.items())) for r in rows)


def test_partitions_run_on_a_celery_worker(redis_url: str, tmp_path: Path) -> None:
    config = GenerateConfig(groups=2, articles=1_500, seed=4, range_size=1_000, chunk=500)
    generate_corpus(str(tmp_path / "demo"), config, progress=False)
    corpus = str(tmp_path / "demo" / "corpus")  # the shared location: every worker sees it
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
        worker = subprocess.Popen(
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
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
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
            _stop(worker)
    assert "Task execute_plan" in worker_log.read_text(errors="replace")

    # the same partitions in-process give the same releases
    local = tmp_path / "local"
    defs = build_defs(
        resource_overrides={
            "corpus": CorpusResource(url=corpus),
            "catalog": CatalogResource(url=str(local)),
            "rules": RulesResource(),
        },
        executor=dg.in_process_executor,
    )
    with dg.DagsterInstance.ephemeral() as instance:
        register(instance, CorpusResource(url=corpus))
        for ref in refs:
            job = defs.resolve_job_def("index_job")
            assert job.execute_in_process(
                instance=instance, partition_key=f"{ref.group}|{ref.name}"
            ).success
    assert _releases(catalog) == _releases(local)
