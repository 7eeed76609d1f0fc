"""End to end: the Dagster webserver over `-m assets`, seen by headless Chromium.

The webserver runs on loopback over a temporary instance whose range partitions were
registered from a tiny generated corpus; Chromium renders the asset catalog and the
lineage page, and the partitioned header-pass assets must be there with their count.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from assets.launch import prepare_home, register
from assets.resources import CorpusResource
from tests.corpora import generate
from tests.servers import CHROMIUM, chromium_dom, free_port, start, stop_group, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]

WEBSERVER = Path(sys.executable).with_name("dagster-webserver")


def _wait_up(url: str, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"the webserver exited with {proc.returncode}")
        with urllib.request.urlopen(url, timeout=2) as reply:
            return bool(reply.status == 200)

    wait_until(up, url, seconds, every=0.5)


@pytest.fixture(scope="module")
def webserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (scripts/setup.sh --dev installs it)")
    root = tmp_path_factory.mktemp("ui")
    corpus = generate(
        root / "demo", groups=2, articles=1_500, seed=2, range_size=1_000, chunk=500
    ).corpus
    home = prepare_home(root / "dagster")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        ranges = register(instance, CorpusResource(url=corpus))
    port = free_port()
    env = dict(
        os.environ,
        DAGSTER_HOME=str(home),
        USENET_INDEXER_CORPUS=corpus,
        USENET_INDEXER_CATALOG=str(root / "catalog"),
    )
    log = open(root / "webserver.log", "wb")  # noqa: SIM115 - closed below
    command = [str(WEBSERVER), "-m", "assets", "-h", "127.0.0.1", "-p", str(port)]
    proc = start(command, log, cwd=root, env=env)
    try:
        _wait_up(f"http://127.0.0.1:{port}/server_info", proc)
        yield f"http://127.0.0.1:{port}", len(ranges)
    finally:
        stop_group(proc, seconds=20)  # the webserver and its code server
        log.close()


def _render(url: str, profile: Path) -> str:
    # tall enough that the asset list (virtualized: rows out of view are not in the DOM)
    # shows every asset
    return chromium_dom(url, profile, "--virtual-time-budget=30000", "--window-size=1280,3000")


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


def test_the_ui_graph_reads_as_the_pipeline(webserver: tuple[str, int]) -> None:
    """The dependencies the UI draws (its own GraphQL): the header pass's tables, then the
    probes, the merges, health and the verdicts."""
    import json

    base, _ = webserver
    query = b'{"query": "{ assetNodes { assetKey { path } dependencyKeys { path } } }"}'
    request = urllib.request.Request(
        f"{base}/graphql", data=query, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        nodes = json.load(reply)["data"]["assetNodes"]
    parents = {
        "/".join(n["assetKey"]["path"]): {"/".join(k["path"]) for k in n["dependencyKeys"]}
        for n in nodes
    }
    assert parents["release_probes"] == {"probe_candidates", "pending_releases"}
    assert parents["release_merges"] == {"release_probes"}
    assert parents["release_health"] == {"releases", "release_merges"}
    assert parents["release_verdicts"] == {"release_merges", "release_health"}
