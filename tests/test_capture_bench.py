"""bench-capture end to end on a tiny corpus: serve-nntp in its own process, two runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_bench_capture_prints_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([
        "bench-capture", "--connections", "1,2", "--rate", "40000", "--chunk-size", "2000",
        "--chunks-each", "2", "--lines", "12000", "--work-dir", str(tmp_path),
    ])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.strip().startswith(("1 |", "2 |"))]
    assert len(rows) == 2
    one, two = (float(r.split("|")[1].replace(",", "")) for r in rows)
    assert 0 < one < 40_000 * 1.1  # paced: never faster than the server allows
    assert two > one  # a second connection adds throughput
    # the sample corpus is kept for the next run, the captured corpora are not
    assert [p.name for p in tmp_path.iterdir()] == ["corpus-12000-2000"]
