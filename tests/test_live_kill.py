"""Kill safety of live indexing: `usenet-indexer live` killed with SIGKILL at several
points of its cycles (capture, indexing, writing; the article pass, merges, health, the
judge) and started again loses nothing and holds nothing twice, in the corpus or in the
catalog."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.corpus.reader import CorpusReader, RangeReport
from pipelines.generate import GenerateConfig
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.catalogs import catalog_files, shown_releases
from tests.corpora import generate
from tests.live_catalogs import stage_outputs

pytestmark = pytest.mark.timeout(600)

RANGE, CHUNK = 3000, 500
CONFIG = GenerateConfig(groups=1, articles=8000, seed=9, range_size=RANGE, chunk=500, days=10)
# seconds after each start at which the process is killed: its start-up, its first
# captures and passes, the tail's writes (the group grows the while)
KILL_AFTER = (1.5, 3.0, 4.5, 6.0, 8.0)
HEADER_ONLY = tuple(
    f"--no-{stage}" for stage in ("probe", "merge", "health", "judge", "spots", "ids", "predb")
)

# a group with bodies: obfuscated, split, fake, locked and taken-down uploads
STAGE_CONFIG = GenerateConfig(groups=1, articles=14_000, seed=2, range_size=RANGE, chunk=500,
                              mix="real", split_and_junk=True)  # fmt: skip
# where each stage is killed (tests/live_killer.py): after the N-th call of a function
STAGE_KILLS = (
    ("probe", "pipelines.probe.run:write_outputs", 2),  # two spans probed, the others not
    ("merge", "pipelines.merge.run:atomic_put", 1),  # a batch's first file, its record not
    ("health", "pipelines.health.sweep:write_batch", 1),  # a batch's checks stored
    ("judge", "pipelines.judge.run:write_verdicts", 1),  # verdicts stored, its place not
)


def _lines(root: str) -> list[bytes]:
    reader = CorpusReader(root)
    (group,) = reader.groups()
    out: list[bytes] = []
    for info in reader.ranges(group):
        report = RangeReport(group, info.ref.first, info.ref.last)
        for chunk in reader.read_range(info, report):
            out.extend(chunk.data.splitlines(keepends=True))
        assert not report.bad_lines and not report.chunks_truncated
    return out


def test_killed_at_any_point_and_started_again_nothing_is_lost_or_doubled(
    tmp_path: Path,
) -> None:
    gen = generate(tmp_path / "gen", CONFIG)
    group = gen.meta["groups"][0]["name"]
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    # the whole group visible in ~10 s, in steps a cycle apart
    with NNTPServer(gen.corpus, options=ServerOptions(grow_rate=900.0, grow_from=500)) as srv:
        cmd = [
            sys.executable, "-m", "cli.main", "live", "--server", f"127.0.0.1:{srv.port}",
            "--group", group, "--corpus", str(corpus), "--catalog", str(catalog),
            "--range-size", str(RANGE), "--chunk-size", str(CHUNK), "--interval", "0.3",
            "--no-serve", "--connections", "2", *HEADER_ONLY,
        ]  # fmt: skip
        for delay in KILL_AFTER:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    process_group=0)  # fmt: skip
            time.sleep(delay)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        served_high = srv.corpus.groups[group].high
        while srv.corpus.groups[group].visible(time.monotonic()) < served_high:
            time.sleep(0.2)
        # started again once more, it finishes the job
        done = subprocess.run([*cmd, "--cycles", "2"], capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    # the corpus: every served line once, in order
    assert _lines(str(corpus)) == _lines(gen.corpus)
    # the catalog: what a batch replay of that corpus makes. The complete ranges' files
    # are the same bytes; the growing range's tail may be in other parts than the batch's
    # one (parts split where the runs were stopped): the same releases, newest versions
    # alike but for which part wrote them, and the same segments under each
    batch = tmp_path / "batch"
    replay(str(corpus), str(batch), Rules(), progress=False)

    def ranges_only(files: dict[str, bytes]) -> dict[str, bytes]:
        return {k: v for k, v in files.items() if "/tail-" not in k and "_tail" not in k}

    assert ranges_only(catalog_files(catalog)) == ranges_only(catalog_files(batch))
    assert shown_releases(catalog) == shown_releases(batch)


@pytest.mark.slow
def test_killed_mid_stage_and_started_again_the_catalog_is_an_undisturbed_run_s(
    tmp_path: Path,
) -> None:
    gen = generate(tmp_path / "gen", STAGE_CONFIG)
    group = gen.meta["groups"][0]["name"]
    gone = frozenset(pq.read_table(gen.out / "truth" / "gone.parquet")["message_id"].to_pylist())

    def live(root: Path, *more: str) -> list[str]:
        return [
            "live", "--server", f"127.0.0.1:{srv.port}", "--group", group,
            "--corpus", str(root / "corpus"), "--catalog", str(root / "catalog"),
            "--range-size", str(RANGE), "--chunk-size", str(CHUNK), "--interval", "0.3",
            "--no-serve", "--connections", "2", "--ahead", "100", "--health-share", "0",
            "--cycles", "2", *more,
        ]  # fmt: skip

    def run(*cmd: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", *cmd], capture_output=True, text=True,
                              timeout=300)  # fmt: skip

    killed, undisturbed = tmp_path / "killed", tmp_path / "undisturbed"
    with NNTPServer(gen.corpus, options=ServerOptions(gone=gone)) as srv:
        done = run("cli.main", *live(undisturbed))
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        for stage, target, nth in STAGE_KILLS:
            died = run("tests.live_killer", target, str(nth), *live(killed))
            assert died.returncode == -signal.SIGKILL, f"not killed mid-{stage}:\n{died.stdout}"
        done = run("cli.main", *live(killed))
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    # the same releases and names, merges, health and verdicts
    assert stage_outputs(killed / "catalog") == stage_outputs(undisturbed / "catalog")
    assert shown_releases(killed / "catalog") == shown_releases(undisturbed / "catalog")
