"""The rule counters survive SIGKILL: a replay killed while it writes ranges and started
again holds each count once, the same as a replay never disturbed (the counts are rows
of the ranges' own partitions, replaced whole when a range is redone)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipelines.index.replay import replay
from pipelines.rules import store
from tests.catalogs import catalog_files
from tests.corpora import generate


def _rules_in(catalog: Path) -> None:
    store.add_rule(str(catalog), r"\.S0\dE", "t", force=True)  # some episodes: dropped
    store.add_rule(str(catalog), r"1080p", "t", action="watch")
    store.add_rule(str(catalog), r"x264", "t", state="shadow", force=True)


def _parts(catalog: Path) -> int:
    return sum(1 for _ in catalog.glob("rule_hits/*/*.parquet"))


@pytest.mark.slow
def test_counters_are_exact_across_sigkill(tmp_path: Path) -> None:
    gen = generate(tmp_path / "g", groups=2, articles=4_000, seed=5, range_size=500, chunk=250)
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps(gen.rules.to_json()))
    calm, killed = tmp_path / "calm", tmp_path / "killed"
    _rules_in(calm)
    _rules_in(killed)
    # the same rule ids and versions in both (the ids are given in order)
    assert store.load_rules(str(calm)).fingerprint == store.load_rules(str(killed)).fingerprint
    replay(gen.corpus, str(calm), gen.rules, progress=False)
    total = _parts(calm)
    assert total >= 8
    cmd = [sys.executable, "-m", "cli.main", "replay", gen.corpus, "--catalog", str(killed),
           "--rules", str(rules_file), "--quiet"]  # fmt: skip
    for after in (1, total // 3, total // 2):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while _parts(killed) < after and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert catalog_files(killed) == catalog_files(calm)

    def view(catalog: Path) -> dict[str, dict[str, object]]:
        return {r["id"]: r | {"created": 0} for r in store.rule_counters(str(catalog))}

    counters = view(killed)
    assert counters == view(calm)
    assert all(counters[r.id]["headers"] for r in store.load_rules(str(calm)).operator)
