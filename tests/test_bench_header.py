"""`usenet-indexer bench`: the figures come from real runs, and --repeat keeps the least CPU."""

from __future__ import annotations

import pytest

from bench.header import run_bench
from cli.main import main
from pipelines.index.range_indexer import STAGES


@pytest.mark.slow
def test_repeat_keeps_the_least_cpu_of_each_and_says_so():
    figures = run_bench(n_lines=5000, seed=3, chunk=2000, repeat=2)
    assert figures.lines == 5000
    assert len(figures.pass_cpu_runs) == len(figures.floor_cpu_runs) == 2
    assert figures.cpu_seconds == min(figures.pass_cpu_runs) > 0
    assert figures.floor_cpu_seconds == min(figures.floor_cpu_runs) > 0
    assert 0 < figures.segments < figures.lines
    assert figures.floor_segment_bytes > 0 and figures.release_files_bytes > 0
    text = figures.text()
    assert "best of 2 runs" in text and "pass / floor time" in text
    # the counted run's stages: every one, together its whole CPU (clock reads apart)
    assert list(figures.stage_cpu) == list(STAGES)
    assert all(cpu >= 0 for cpu in figures.stage_cpu.values())
    assert sum(figures.stage_cpu.values()) == pytest.approx(figures.cpu_seconds, abs=1e-6)
    assert "by stage (CPU-s): setup " in text and "; read, inflate, scan " in text
    # the pass maps some pages (its heap grows to its peak once), and the bench says how many
    assert figures.page_faults > 0 and f"page faults of the pass: {figures.page_faults:,}" in text
    # the shape floor is a part of what the pass does: less than the whole
    assert 0 < figures.shape_floor_cpu_seconds < figures.cpu_seconds
    assert "shape floor (inflate + field scan + message-id column): " in text


def test_bad_arguments_are_refused(capsys):
    assert main(["bench", "--lines", "10"]) == 2
    assert main(["bench", "--repeat", "0"]) == 2
    assert "--repeat must be at least 1" in capsys.readouterr().out
