"""End to end: the Dagster webserver over `-m assets`, seen by headless Chromium.

The webserver runs on loopback over a temporary instance whose range partitions were
registered from a tiny generated corpus; Chromium renders the asset catalog and the
lineage page, and the partitioned header-pass assets must be there with their count.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from assets.launch import prepare_home, register
from assets.resources import CorpusResource
from pipelines.generate import GenerateConfig, generate_corpus

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WEBSERVER = Path(sys.executable).with_name("dagster-webserver")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(url: str, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the webserver exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer in {seconds} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the webserver and its code server (its process group), by its id."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def webserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (scripts/setup.sh --dev installs it)")
    root = tmp_path_factory.mktemp("ui")
    config = GenerateConfig(groups=2, articles=1_500, seed=2, range_size=1_000, chunk=500)
    generate_corpus(str(root / "demo"), config, progress=False)
    corpus = str(root / "demo" / "corpus")
    home = prepare_home(root / "dagster")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        ranges = register(instance, CorpusResource(url=corpus))
    port = _free_port()
    env = dict(
        os.environ,
        DAGSTER_HOME=str(home),
        USENET_INDEXER_CORPUS=corpus,
        USENET_INDEXER_CATALOG=str(root / "catalog"),
    )
    log = open(root / "webserver.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [str(WEBSERVER), "-m", "assets", "-h", "127.0.0.1", "-p", str(port)],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_up(f"http://127.0.0.1:{port}/server_info", proc)
        yield f"http://127.0.0.1:{port}", len(ranges)
    finally:
        _stop(proc)
        log.close()


def _render(url: str, profile: Path) -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=30000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return done.stdout.decode("utf-8", "replace")


def test_asset_catalog_shows_the_partitioned_assets(
    webserver: tuple[str, int], tmp_path: Path
) -> None:
    base, ranges = webserver
    dom = _render(f"{base}/assets", tmp_path / "chrome")
    for name in ("releases", "release_files", "window_snapshots", "compacted", "catalog_views"):
        assert name in dom, name
    counts = [int(n) for n in re.findall(r"(\d+) partitions", dom)]
    assert ranges > 0 and counts.count(ranges) >= 8  # the eight header-pass outputs


def test_lineage_page_shows_the_asset_groups(webserver: tuple[str, int], tmp_path: Path) -> None:
    base, _ = webserver
    dom = _render(f"{base}/asset-groups", tmp_path / "chrome")
    assert "header_pass" in dom and "catalog" in dom
