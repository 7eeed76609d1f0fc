"""Judge runs: taking back, a changed rule set, incremental runs, the command and the
Dagster asset."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
import pytest

from cli.main import main
from pipelines.judge import rules
from pipelines.judge.run import judge_catalog
from pipelines.judge.store import current_verdicts, verdict_rows
from tests.dagster_runs import in_process_defs
from tests.judge_catalogs import DAY, MB, NOW, Range, write_health

FILM = "Some.Film.2019.1080p.BluRay.x264-GRP"
HASHED = "a8f3c9d2e1b7406f9e2d"


def standing(catalog: Path) -> dict[bytes, str]:
    rows = current_verdicts(str(catalog))
    return dict(zip(rows["release_key"].to_pylist(), rows["rule"].to_pylist(), strict=True))


def _base(catalog: Path) -> tuple[bytes, bytes]:
    """A locked release and a plain one."""
    r = Range(0, 999)
    locked = r.release("l", FILM, [("f.part01.rar", 50 * MB)])
    r.probe(locked, password=1)
    plain = r.release("ok", "Show.S01E01.720p.HDTV.x264", [("s.mkv", 300 * MB)])
    r.write(catalog)
    return locked, plain


def test_a_verdict_whose_rule_no_longer_matches_is_taken_back(tmp_path: Path) -> None:
    locked, _ = _base(tmp_path)
    judge_catalog(str(tmp_path), now=NOW)
    assert standing(tmp_path) == {locked: "locked"}
    # the article pass probes the range again and finds the password in an NFO
    again = Range(0, 999)
    again.probe(locked, password=1, password_text="usenet", probed_at=NOW + 10)
    again.write(tmp_path)
    s = judge_catalog(str(tmp_path), now=NOW + 20)
    assert s.taken_back == 1 and standing(tmp_path) == {}
    rows = verdict_rows(str(tmp_path)).to_pylist()
    assert [(r["rule"], r["release_key"]) for r in rows] == [("locked", locked), (None, locked)]
    # nothing written twice: a run with nothing changed writes nothing
    s = judge_catalog(str(tmp_path), now=NOW + 30)
    assert s.judged == 0 and verdict_rows(str(tmp_path)).num_rows == 2


def test_a_new_rule_set_version_judges_everything_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked, _ = _base(tmp_path)
    first = judge_catalog(str(tmp_path), now=NOW)
    assert first.full and first.judged == 2
    assert judge_catalog(str(tmp_path), now=NOW).judged == 0
    monkeypatch.setattr(rules, "RULES_VERSION", rules.rules_version({**rules.RULES_DOC, "x": 1}))
    s = judge_catalog(str(tmp_path), now=NOW)
    assert s.full and s.judged == 2 and s.verdicts["locked"] == 1
    current = current_verdicts(str(tmp_path)).to_pylist()
    assert [(r["release_key"], r["rules_version"]) for r in current] == [
        (locked, rules.RULES_VERSION)
    ]
    # --all judges everything, and writes nothing that stands already
    s = judge_catalog(str(tmp_path), everything=True, now=NOW)
    assert s.full and s.judged == 2 and not s.verdicts


def test_incremental_runs_judge_only_what_changed(tmp_path: Path) -> None:
    _base(tmp_path)
    assert judge_catalog(str(tmp_path), now=NOW).judged == 2
    later = Range(1000, 1999)
    dead = later.release("d", "Other.Film.2020.720p.WEB.x264", [("o.mkv", 700 * MB)])
    later.release("fine", "Third.Film.2020.720p.WEB.x264", [("t.mkv", 700 * MB)])
    later.write(tmp_path)
    s = judge_catalog(str(tmp_path), now=NOW)
    assert s.judged == 2 and not s.verdicts  # the new range's two releases
    write_health(tmp_path, [{"release_key": dead, "verdict": "dead"}], first=1000)
    s = judge_catalog(str(tmp_path), now=NOW)
    assert s.judged == 1 and s.verdicts == {"dead": 1}
    assert standing(tmp_path)[dead] == "dead"
    # what the incremental runs left is what judging everything gives
    s = judge_catalog(str(tmp_path), everything=True, now=NOW)
    assert s.judged == 4 and not s.verdicts and not s.taken_back


def test_time_alone_makes_an_old_random_upload_unusable(tmp_path: Path) -> None:
    r = Range(0, 999)
    young = r.release("y", HASHED, [(f"{HASHED}.bin", 9 * MB)], posted_last=NOW, pending=True)
    r.write(tmp_path)
    s = judge_catalog(str(tmp_path), now=NOW)
    assert s.judged == 1 and standing(tmp_path) == {}
    # the catalog moves on: a release posted a day and an hour later
    later = Range(1000, 1999)
    later.release("n", FILM, [(f"{FILM}.mkv", 700 * MB)], posted_last=NOW + DAY + 3600)
    later.write(tmp_path)
    s = judge_catalog(str(tmp_path), now=NOW + DAY + 3600)
    assert s.judged == 2  # the new release, and the upload that crossed the line
    assert standing(tmp_path) == {young: "unusable"}
    s = judge_catalog(str(tmp_path), everything=True, now=NOW + DAY + 3600)
    assert not s.verdicts and not s.taken_back


def test_the_command_shows_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _base(tmp_path)
    assert main(["judge", "--catalog", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 releases judged (all)" in out and "locked 1" in out
    assert main(["judge", "--catalog", str(tmp_path), "--all", "--quiet"]) == 0
    assert "new verdicts: none" in capsys.readouterr().out


def test_the_asset_judges_in_a_dagster_run(tmp_path: Path) -> None:
    locked, _ = _base(tmp_path)
    os.makedirs(tmp_path / "corpus", exist_ok=True)
    defs = in_process_defs(str(tmp_path / "corpus"), str(tmp_path))
    with dg.DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("judge_job").execute_in_process(instance=instance)
    assert result.success
    (mat,) = result.asset_materializations_for_node("release_verdicts")
    assert mat.metadata["judged"].value == 2
    assert mat.metadata["standing/locked"].value == 1
    assert mat.metadata["new/dead"].value == 0
    assert standing(tmp_path) == {locked: "locked"}


def test_an_object_store_catalog_tells_a_rewritten_file(tmp_path: Path) -> None:
    """On a file system without modification times (fsspec's memory), the listing's
    stamps still tell a rewritten partition."""
    catalog = f"memory://judge-{tmp_path.name}"
    r = Range(0, 999)
    locked = r.release("l", FILM, [("f.part01.rar", 50 * MB)])
    r.probe(locked, password=1)
    r.write(catalog)
    judge_catalog(catalog, now=NOW)
    assert [v["rule"] for v in current_verdicts(catalog).to_pylist()] == ["locked"]
    again = Range(0, 999)
    again.probe(locked, password=1, password_text="a much longer known password", probed_at=NOW + 1)
    again.write(catalog)
    s = judge_catalog(catalog, now=NOW + 2)
    assert s.taken_back == 1 and current_verdicts(catalog).num_rows == 0


def test_the_bench_command_reports_cpu_per_million_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    assert main(["bench-judge", "--releases", "3000", "--catalog", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["all", "nothing changed", "one new range"]
    assert "3,000 of 3,000 judged" in lines[0] and "0 of 3,000 judged" in lines[1]
    assert all("CPU s per million judged" in line for line in lines)
    assert main(["bench-judge", "--releases", "0"]) == 2
