"""`corpus check`: a group's growing tail range is reported as such, every other gap is an error."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cli.main import main
from pipelines.corpus.check import COMPLETE, GROWING, INCOMPLETE, check_corpus
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.writer import CorpusWriter

GROUP, OTHER = "alt.binaries.test", "alt.binaries.other"


def lines(a: int, b: int, group: str = GROUP) -> bytes:
    return b"".join(
        f'{n}\tSome.Thing - "a.rar" yEnc (1/3)\tp <p@example.com>\t'
        f"Mon, 01 Jan 2024 10:00:00 +0000\t<p{n}@x>\t\t750000\t5800\t"
        f"Xref: news.example {group}:{n}\r\n".encode()
        for n in range(a, b + 1)
    )


def write(root: Path, first: int, last: int, upto: int, group: str = GROUP) -> RangeRef:
    """Range first..last with chunks of 25 stored up to `upto`; complete when that is all."""
    writer = CorpusWriter(str(root))
    ref = RangeRef(group, first, last)
    entries = [
        writer.write_chunk(ref, a, min(a + 24, upto), lines(a, min(a + 24, upto), group))
        for a in range(first, upto + 1, 25)
    ]
    writer.write_manifest(ref, entries, complete=upto == last)
    return ref


def checked(root: Path) -> tuple[list[dict], str]:
    as_json, text = io.StringIO(), io.StringIO()
    check_corpus(str(root), as_json=True, out=as_json)
    check_corpus(str(root), out=text)
    return [json.loads(x) for x in as_json.getvalue().splitlines()], text.getvalue()


def cli_exit(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["corpus", "check", str(root)])
    return code, capsys.readouterr().out


def test_a_tailed_groups_newest_range_is_growing_and_no_error(tmp_path, capsys):
    write(tmp_path, 1, 100, 100)
    write(tmp_path, 101, 200, 160)  # the tail: stored as far as capture got
    write(tmp_path, 1, 100, 100, OTHER)
    summary = check_corpus(str(tmp_path))
    assert summary.clean and (summary.ranges, summary.complete, summary.growing) == (3, 2, 1)
    reports, text = checked(tmp_path)
    assert [(r["group"], r["first"], r["state"]) for r in reports] == [
        (OTHER, 1, COMPLETE),
        (GROUP, 1, COMPLETE),
        (GROUP, 101, GROWING),
    ]
    assert reports[2]["stored_last"] == 160 and reports[2]["lines"] == 60
    assert "101-200: growing (the group's tail: 101-160 stored)" in text
    assert "INCOMPLETE" not in text and "2 complete, 1 growing" in text
    code, out = cli_exit(tmp_path, capsys)
    assert code == 0 and "growing" in out


def test_a_tail_range_with_nothing_stored_yet_is_growing(tmp_path, capsys):
    write(tmp_path, 1, 100, 100)
    CorpusWriter(str(tmp_path)).write_manifest(RangeRef(GROUP, 101, 200), [], complete=False)
    _, text = checked(tmp_path)
    assert "101-200: growing (the group's tail: nothing yet stored)" in text
    assert cli_exit(tmp_path, capsys)[0] == 0


def test_an_incomplete_range_that_is_not_the_newest_is_an_error(tmp_path, capsys):
    write(tmp_path, 1, 100, 60)  # left unfinished, and the group went on past it
    write(tmp_path, 101, 200, 200)
    write(tmp_path, 201, 300, 230)
    summary = check_corpus(str(tmp_path))
    assert not summary.clean and (summary.complete, summary.growing) == (1, 1)
    reports, text = checked(tmp_path)
    assert [r["state"] for r in reports] == [INCOMPLETE, COMPLETE, GROWING]
    assert (
        "1-100: INCOMPLETE from 61 (range.json says incomplete, yet not the group's newest)" in text
    )
    code, out = cli_exit(tmp_path, capsys)
    assert code == 1 and "INCOMPLETE" in out


@pytest.mark.parametrize("damage", ["missing", "cut", "gap", "no manifest", "bad lines"])
def test_a_damaged_newest_range_is_still_an_error(tmp_path, capsys, damage):
    write(tmp_path, 1, 100, 100)
    ref = write(tmp_path, 101, 200, 175)
    folder = Path(ref.path(str(tmp_path)))
    if damage == "missing":
        (folder / "126-150.xover.zz").unlink()
    elif damage == "cut":
        chunk = folder / "126-150.xover.zz"
        chunk.write_bytes(chunk.read_bytes()[:-10])
    elif damage == "gap":
        manifest = json.loads((folder / "range.json").read_text())
        del manifest["chunks"][1]
        (folder / "range.json").write_text(json.dumps(manifest))
    elif damage == "no manifest":
        (folder / "range.json").unlink()
    else:
        writer = CorpusWriter(str(tmp_path))
        bad = writer.write_chunk(ref, 176, 180, lines(176, 179) + b"180\tonly\tthree\r\n")
        manifest = json.loads((folder / "range.json").read_text())
        manifest["chunks"].append(bad.to_json())
        (folder / "range.json").write_text(json.dumps(manifest))
    summary = check_corpus(str(tmp_path))
    assert not summary.clean
    if damage == "bad lines":
        assert summary.growing == 1 and summary.bad_lines == 1  # growing, but bad lines fail
    else:
        assert summary.growing == 0
        assert "INCOMPLETE" in checked(tmp_path)[1]
    assert cli_exit(tmp_path, capsys)[0] == 1
