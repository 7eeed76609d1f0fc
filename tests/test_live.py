"""Live indexing on one machine (`pipelines.live`, `usenet-indexer live`): capture from a
news server whose groups grow, the tail indexed each cycle, served as it goes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.schedule import Limits
from pipelines.catalog.views import CatalogViews
from pipelines.generate import GenerateConfig
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from pipelines.live import Live
from pipelines.live_stages import StageSettings
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer
from tests.corpora import generate
from tests.servers import free_port, wait_until

pytestmark = pytest.mark.timeout(300)

RANGE, CHUNK = 3000, 500
CONFIG = GenerateConfig(groups=1, articles=7000, seed=5, range_size=RANGE, chunk=500, days=10)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, int, int]:
    """A generated corpus to serve, its group, and its first and last article."""
    gen = generate(tmp_path_factory.mktemp("live") / "gen", CONFIG)
    group = gen.meta["groups"][0]["name"]
    folder = Path(gen.corpus) / group
    spans = sorted(tuple(map(int, p.name.split("-"))) for p in folder.iterdir() if p.is_dir())
    return gen.corpus, group, spans[0][0], spans[-1][1]


def _releases(catalog: Path, column: str = "finished") -> dict[bytes, object]:
    views = CatalogViews(str(catalog))
    views.refresh()
    try:
        rows = views.query(f"SELECT release_key, {column} FROM releases").to_pylist()
    finally:
        views.close()
    return {r["release_key"]: r[column] for r in rows}


def test_each_cycle_indexes_what_came_and_ends_as_a_batch_replay(served, tmp_path: Path) -> None:
    root, group, first, _ = served
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    with NNTPServer(root) as srv:
        provider = Provider("127.0.0.1", srv.port, connections=2, timeout=5.0)
        settings = CaptureSettings(plan=PlanSettings(RANGE, CHUNK, headroom=0), limits=Limits())
        pools = ProviderPools([provider])
        capture = Capture(
            pools, str(corpus), [group], settings, consumed=IndexedRanges(str(catalog))
        )
        # the header pass alone: its catalog is a batch replay's (tests/test_live_stages.py
        # has the stages after it)
        live = Live(capture, str(corpus), str(catalog), Rules(), interval=0,
                    stages=StageSettings.header_only())  # fmt: skip
        served_group = srv.corpus.groups[group]
        seen: dict[bytes, object] = {}
        singles: set[bytes] = set()
        for high in (first + RANGE + 700, first + RANGE + 1900):
            served_group.visible_high = high
            cycle = live.cycle()
            assert cycle.captured > 0
            (tail,) = cycle.replay.tails
            assert tail.part is not None and tail.cursor == high
            now = _releases(catalog)
            assert not any(seen[k] and not now[k] for k in seen if k in now)  # none un-finishes
            seen = now
            singles |= {k for k, n in _releases(catalog, "files").items() if n == 1}
        assert not all(seen.values()), "nothing shown as still being posted"
        served_group.visible_high = None
        live.cycle()
        capture.pools.close()
    assert live.summary.cycles == 3 and live.summary.captured > 0
    # the same releases as a batch replay of the served corpus, finished the same
    batch = tmp_path / "batch"
    replay(root, str(batch), Rules(), progress=False)
    assert _releases(catalog) == _releases(batch)
    # every release shown while the range grew kept its key, but singles that went into
    # an album (which takes its first member's key; the rest are hidden, as tombstones
    # hide a member written on its own)
    gone = set(seen) - set(_releases(catalog))
    assert gone <= singles


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return bytes(reply.read())


def test_the_command_serves_while_it_indexes_and_one_ctrl_c_stops_it_all(
    served, tmp_path: Path
) -> None:
    root, group, _, _ = served
    port = free_port()
    with NNTPServer(root) as srv:
        cmd = [
            sys.executable, "-m", "cli.main", "live", "--server", f"127.0.0.1:{srv.port}",
            "--group", group, "--corpus", str(tmp_path / "corpus"),
            "--catalog", str(tmp_path / "catalog"), "--range-size", str(RANGE),
            "--chunk-size", str(CHUNK), "--interval", "1", "--port", str(port),
            "--api-key", "k1",
        ]  # fmt: skip
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            process_group=0, env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )  # fmt: skip
        try:
            lines: list[str] = []
            assert proc.stdout is not None
            while not any(line.startswith("cycle 2:") for line in lines):
                line = proc.stdout.readline()
                assert line, "live ended early:\n" + "".join(lines)
                lines.append(line)
            api = f"http://127.0.0.1:{port}/api?t=search&o=json&apikey=k1"

            def found() -> bool:
                try:
                    doc = json.loads(_get(api))
                except OSError:
                    return False
                return bool(doc.get("channel", {}).get("item") or doc.get("item"))

            wait_until(found, "a search answering with releases", 60)
            os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C
            rest, _ = proc.communicate(timeout=180)  # a loaded machine stops slower
        finally:
            if proc.poll() is None:
                proc.kill()
    out = "".join(lines) + rest
    assert proc.returncode == 130, out
    assert "live: " in out and "stopped: interrupted" in out
    with pytest.raises(OSError):
        _get(f"http://127.0.0.1:{port}/api?t=caps")  # the server stopped with it


def test_a_rule_added_while_live_runs_redoes_only_the_ranges_where_it_fires(
    served, tmp_path: Path
) -> None:
    """An operator adds a rule (the admin pages, `rules add`) while `live` runs: the next
    cycle scans where it fires before the header pass, which redoes only those ranges
    (and those after them), not every range of the group; the catalog is then a batch
    replay's under the rule."""
    from pipelines.rules.store import add_rule

    root, group, _, _ = served
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    with NNTPServer(root) as srv:
        provider = Provider("127.0.0.1", srv.port, connections=2, timeout=5.0)
        settings = CaptureSettings(plan=PlanSettings(RANGE, CHUNK, headroom=0), limits=Limits())
        capture = Capture(ProviderPools([provider]), str(corpus), [group], settings,
                          consumed=IndexedRanges(str(catalog)))  # fmt: skip
        live = Live(capture, str(corpus), str(catalog), Rules(), interval=0,
                    stages=StageSettings.header_only())  # fmt: skip
        first = live.cycle()
        complete = first.replay.ranges_indexed
        assert complete >= 2
        views = CatalogViews(str(catalog))
        views.refresh()
        try:
            (newest,) = views.query(
                "SELECT name FROM releases WHERE finished ORDER BY first_article DESC LIMIT 1"
            ).to_pylist()
        finally:
            views.close()
        add_rule(str(catalog), newest["name"], "test", literal=True, force=True)
        again = live.cycle()
        capture.pools.close()
    assert again.replay.ranges_indexed == 1 < complete  # only the newest complete range
    batch = tmp_path / "batch"
    add_rule(str(batch), newest["name"], "test", literal=True, force=True)
    replay(root, str(batch), Rules(), progress=False)
    assert _releases(catalog) == _releases(batch)
    assert newest["name"] not in {n for n in _releases(catalog, "name").values()}
