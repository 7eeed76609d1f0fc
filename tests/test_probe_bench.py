"""`usenet-indexer bench-probe-inspect`: every kind's body is what it claims, and the
figures are printed (no timing is asserted: speed is the bench's, not a test's)."""

from __future__ import annotations

from bench.probe_inspect import bodies, run_bench
from cli.main import main
from pipelines.probe import inspection as ins
from pipelines.probe.inspect import inspect_body

EXPECTED = {
    "par2 index": ins.PAR2,
    "par2 volume": ins.PAR2,
    "rar4": ins.RAR,
    "rar5": ins.RAR,
    "7z tail": ins.SEVEN_ZIP,
    "zip": ins.ZIP,
    "nfo": ins.NFO,
    "media": ins.MEDIA,
    "garbage": ins.OTHER,
    "garbage tail": ins.OTHER,
}


def test_each_kind_is_what_it_says():
    made, skipped = bodies()
    assert set(made) <= set(EXPECTED)
    assert {"7z tail", "zip", "nfo", "media", "garbage", "garbage tail"} <= set(made)
    for kind, body in made.items():
        result = inspect_body(body)
        assert result.kind == EXPECTED[kind], (kind, result)
        assert result.status == (ins.ERROR if kind.startswith("garbage") else ins.OK)
        if EXPECTED[kind] in (ins.PAR2, ins.RAR, ins.SEVEN_ZIP, ins.ZIP):
            assert result.names, kind
    assert len(made) == len(EXPECTED) or skipped  # a kind missing says why


def test_figures_and_command(capsys):
    figures = run_bench(articles=2, repeat=1)
    assert figures.kinds and all(k.inspect_ms >= 0 <= k.decode_ms for k in figures.kinds)
    assert "CPU per probed article" in figures.text()
    assert main(["bench-probe-inspect", "--articles", "1", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "7z tail" in out and "slowest:" in out
    assert main(["bench-probe-inspect", "--repeat", "0"]) == 2
