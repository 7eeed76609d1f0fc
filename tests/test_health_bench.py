"""bench-health end to end on a tiny corpus: serve-nntp in its own process, two sweeps."""

from __future__ import annotations

import io

from bench.health import run_bench


def test_the_bench_sweeps_and_a_second_sweep_finds_nothing_due() -> None:
    figures = run_bench(articles=3_000, connections=2, lines_per_second=0, lag=0.0, rounds=2,
                        out=io.StringIO())  # fmt: skip
    assert figures.ended == "done"
    assert figures.releases > 0 and figures.stats >= figures.releases
    assert figures.second_candidates == 0
    assert "STATs/s per connection" in figures.text()
