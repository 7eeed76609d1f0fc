"""What is new since a stage's last run (`pipelines.catalog.changes`), and the stages that
read only that: replay, the probe's due spans, merges, health's due releases, the judge.

Folder times within `RACY_NS` of a stamp are not trusted, so the tests age a catalog's
folders (`age`) before the runs whose memos they look at, as minutes between live cycles
would.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from pipelines.catalog import changes
from pipelines.catalog.changes import UNKNOWN, Stamps, stamp_of
from pipelines.catalog.schema import RANGES
from pipelines.catalog.views import CatalogViews
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.generate import GenerateConfig
from pipelines.health.cadence import DEFAULT
from pipelines.health.candidates import due_candidates
from pipelines.health.due import due_now
from pipelines.health.store import latest_health, write_batch
from pipelines.index import replay as replay_module
from pipelines.index.replay import replay
from pipelines.judge import facts as judge_facts
from pipelines.judge.run import judge_catalog
from pipelines.merge import run as merge_run
from pipelines.probe import spans as probe_spans
from tests.corpora import Generated, replayed

CONFIG = GenerateConfig(groups=2, articles=3_000, seed=5, range_size=1_000, chunk=500)


def age(*roots: str | Path, seconds: float = 60.0) -> None:
    """Set the folders under the roots (and the roots) changed within the last few
    seconds back in time; the others keep their times (their stamps stay)."""
    now = time.time()
    then = now - seconds
    for root in roots:
        for folder, _, _ in os.walk(root):
            if os.stat(folder).st_mtime > now - 5:
                os.utime(folder, (then, then))


def _range_row(first: int, last: int) -> pa.Table:
    row: dict[str, list[object]] = {name: [0] for name in RANGES.names}
    row.update(group=["g"], range_first=[first], range_last=[last], rules_version=["r"],
               seconds=[0.0])  # fmt: skip
    return pa.Table.from_pydict(row, schema=RANGES)


# --- the mechanism -------------------------------------------------------------------


def test_a_stamp_moves_with_every_partition_written_or_removed(tmp_path: Path) -> None:
    fs, root = open_fs(str(tmp_path))
    folder = f"{root}/ranges/g"
    write_partition(str(tmp_path), "ranges", "g", 0, 9, _range_row(0, 9))
    assert stamp_of(fs, [folder]) == UNKNOWN  # just written: too fresh to trust
    age(tmp_path)
    first = stamp_of(fs, [folder])
    assert first != UNKNOWN and stamp_of(fs, [folder]) == first
    write_partition(str(tmp_path), "ranges", "g", 10, 19, _range_row(10, 19))
    age(tmp_path, seconds=30)
    second = stamp_of(fs, [folder])
    assert second not in (first, UNKNOWN)
    os.remove(f"{folder}/10-19.parquet")
    age(tmp_path, seconds=20)
    assert stamp_of(fs, [folder]) not in (first, second, UNKNOWN)


def test_a_partition_from_a_writer_that_knows_nothing_of_the_stamps_is_seen(
    tmp_path: Path,
) -> None:
    """Nothing to append after the rename, so nothing a crash can leave out: a file
    renamed into place by any writer moves its folder's stamp."""
    fs, root = open_fs(str(tmp_path))
    os.makedirs(tmp_path / "releases" / "g")
    age(tmp_path)
    memos = Stamps(str(tmp_path), "stage")
    seen = memos.check("g", [f"{root}/releases/g"])
    memos.record(seen, {"nothing": True})
    memos.save()
    assert Stamps(str(tmp_path), "stage").check("g", [f"{root}/releases/g"]).same
    atomic_put(fs, f"{root}/releases/g/0-9.parquet", b"not even parquet")
    age(tmp_path / "releases")
    assert not Stamps(str(tmp_path), "stage").check("g", [f"{root}/releases/g"]).same


def test_a_write_landing_while_a_stage_reads_is_looked_at_next_run(tmp_path: Path) -> None:
    fs, root = open_fs(str(tmp_path))
    os.makedirs(tmp_path / "t" / "g")
    age(tmp_path)
    memos = Stamps(str(tmp_path), "stage")
    seen = memos.check("g", [f"{root}/t/g"])  # taken before the stage reads
    atomic_put(fs, f"{root}/t/g/0-9.parquet", b"x")  # lands while it reads
    memos.record(seen, {"found": 0})
    age(tmp_path)
    assert not memos.check("g", [f"{root}/t/g"]).same
    assert memos.last("g") == {"found": 0}


def test_a_torn_or_foreign_memo_file_means_every_key_is_worked_again(tmp_path: Path) -> None:
    os.makedirs(tmp_path / "t" / "g")
    age(tmp_path)
    folders = [f"{tmp_path}/t/g"]
    memos = Stamps(str(tmp_path), "stage")
    memos.record(memos.check("g", folders), [1, 2])
    memos.save()
    path = tmp_path / changes.STATE_FOLDER / "stage.json"
    body = path.read_bytes()
    path.write_bytes(body[: len(body) // 2])  # cut short (not our writer's way, but a disk's)
    again = Stamps(str(tmp_path), "stage")
    assert not again.check("g", folders).same and again.last("g") is None
    path.write_text(json.dumps({"version": 99, "keys": {}}))
    assert not Stamps(str(tmp_path), "stage").check("g", folders).same
    with pytest.raises(ValueError):
        again.record(again.check("g", folders), None)


# --- the stages ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Generated, Path]:
    tmp = tmp_path_factory.mktemp("changes")
    gen, _ = replayed(tmp / "gen", tmp / "cat", CONFIG)
    return gen, tmp / "cat"


def _copy(world: tuple[Generated, Path], tmp_path: Path) -> tuple[Generated, str]:
    gen, catalog = world
    shutil.copytree(catalog, tmp_path / "cat")
    return gen, str(tmp_path / "cat")


def test_replay_skips_a_quiet_group_and_looks_again_when_capture_stores(
    world: tuple[Generated, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen, catalog = _copy(world, tmp_path)
    age(gen.corpus, catalog)
    first = replay(gen.corpus, catalog, gen.rules, progress=False)
    assert first.ranges_indexed == 0 and first.ranges_resumed > 0
    planned: list[str] = []
    real_plan = replay_module.plan

    def plan(reader: object, g: str) -> object:
        planned.append(g)
        return real_plan(reader, g)  # type: ignore[arg-type]

    monkeypatch.setattr(replay_module, "plan", plan)
    again = replay(gen.corpus, catalog, gen.rules, progress=False)
    assert planned == []  # no manifest, range log or window read
    assert again.text().splitlines()[1:] == first.text().splitlines()[1:]
    assert again.ranges_resumed == first.ranges_resumed
    # capture rewrites a range's manifest of one group: that group is looked at again
    group = sorted(os.listdir(gen.corpus))[0]
    ranges = sorted(e for e in os.listdir(f"{gen.corpus}/{group}") if "-" in e)
    manifest = Path(gen.corpus, group, ranges[-1], "range.json")
    fs, _ = open_fs(gen.corpus)
    atomic_put(fs, str(manifest), manifest.read_bytes())
    age(gen.corpus)
    third = replay(gen.corpus, catalog, gen.rules, progress=False)
    assert planned == [group] and third.ranges_resumed == first.ranges_resumed


def test_the_probe_asks_due_only_of_the_spans_written_since(
    world: tuple[Generated, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, catalog = _copy(world, tmp_path)
    age(catalog)
    asked: list[tuple[int, int]] = []
    real_due = probe_spans.due

    def due(c: str, s: probe_spans.Span) -> bool:
        asked.append((s.first, s.last))
        return real_due(c, s)

    monkeypatch.setattr(probe_spans, "due", due)
    every = probe_spans.spans(catalog)
    assert probe_spans.due_spans(catalog) == every  # no probes file yet: due, unread
    assert asked == []
    # the article pass writes the first span's outputs (every release left waiting)
    from pipelines.probe.run import probe_catalog

    probe_catalog(catalog, None, only=[every[0]])
    age(catalog)
    expected = [s for s in every if real_due(catalog, s)]
    assert probe_spans.due_spans(catalog) == expected
    assert asked == [(every[0].first, every[0].last)]  # the span written, no other
    asked.clear()
    assert probe_spans.due_spans(catalog) == expected and asked == []


def test_a_quiet_merge_run_reads_no_span_and_no_probe_cache(
    world: tuple[Generated, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, catalog = _copy(world, tmp_path)
    from pipelines.probe.run import probe_catalog

    probe_catalog(catalog, None)  # the article pass, from no server: what waits is told
    age(catalog)
    first = merge_run.merge_catalog(catalog)
    assert first.spans > 0
    age(catalog)
    second = merge_run.merge_catalog(catalog)  # its own merges moved the stamps: looked at
    assert second.spans == 0
    age(catalog)

    def refuse(*_: object) -> None:
        raise AssertionError("read")

    monkeypatch.setattr(merge_run, "header_spans", refuse)
    monkeypatch.setattr(merge_run, "probe_facts", refuse)
    third = merge_run.merge_catalog(catalog)
    assert third.spans == 0 and third.waiting == second.waiting


def test_health_reads_a_group_only_when_it_moved_or_fell_due(
    world: tuple[Generated, Path], tmp_path: Path
) -> None:
    _, catalog = _copy(world, tmp_path)
    views = CatalogViews(catalog)
    try:
        newest = int(views.query("SELECT max(posted_last) AS t FROM releases")["t"][0].as_py())
        now = newest + 3 * 86_400
        expected = due_candidates(views, latest_health(catalog), now, DEFAULT)
    finally:
        views.close()
    age(catalog)
    first = due_now(catalog, now, DEFAULT)
    assert first.candidates == expected and first.groups_read == 2
    # every release checked: nothing falls due before a day has passed
    rows = [
        {"release_key": c.release_key, "group": c.group, "checked_at": now, "verdict": "ok",
         "segments": 3, "missing": 0, "posted_last": c.posted_last}
        for c in expected
    ]  # fmt: skip
    write_batch(catalog, rows, 1, 0)
    age(catalog)
    second = due_now(catalog, now, DEFAULT)
    assert second.candidates == [] and second.groups_read == 2  # the checks moved them
    third = due_now(catalog, now + 3600, DEFAULT)
    assert third.candidates == [] and third.groups_read == 0  # an idle pass reads nothing
    later = due_now(catalog, now + 86_400, DEFAULT)
    assert later.groups_read == 2 and {c.release_key for c in later.candidates} == {
        c.release_key for c in expected
    }


def test_a_quiet_judge_run_reads_nothing_until_an_input_moves(
    world: tuple[Generated, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = 2_000_000_000
    catalog, first = _judged_once(world, tmp_path, now)
    assert first.full and first.live > 0
    loads: list[int] = []
    real_load = judge_facts.load

    def load(*a: object, **k: object) -> object:
        loads.append(1)
        return real_load(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(judge_facts, "load", load)
    idle = judge_catalog(catalog, now=now + 60)
    assert loads == [] and idle.judged == 0
    assert (idle.live, idle.current) == (first.live, first.current)
    # a health check lands: the judge reads again
    views = CatalogViews(catalog)
    try:
        row = views.query('SELECT release_key, "group", posted_last FROM releases LIMIT 1')
    finally:
        views.close()
    (r,) = row.to_pylist()
    write_batch(catalog, [{"release_key": bytes(r["release_key"]), "group": r["group"],
                           "checked_at": now, "verdict": "dead", "segments": 3, "missing": 3,
                           "posted_last": r["posted_last"]}], 1, 0)  # fmt: skip
    age(catalog)
    moved = judge_catalog(catalog, now=now + 120)
    assert loads == [1] and moved.judged == 1 and moved.verdicts["dead"] == 1


def test_a_folder_of_batches_is_read_once_a_process_and_again_when_one_changed(
    tmp_path: Path,
) -> None:
    fs, root = open_fs(str(tmp_path))
    folder = f"{root}/batches"
    for name in ("1", "2"):
        atomic_put(fs, f"{folder}/{name}.parquet", b"a")
    once = changes.WrittenOnce(fs, folder, "reader")
    assert once.new() == (["1.parquet", "2.parquet"], False)
    once.taken("1.parquet")
    once.taken("2.parquet")
    atomic_put(fs, f"{folder}/3.parquet", b"b")
    again = changes.WrittenOnce(fs, folder, "reader")  # another run, the same process
    assert again.new() == (["3.parquet"], False)
    again.taken("3.parquet")
    assert changes.WrittenOnce(fs, folder, "another reader").new()[0] == [
        "1.parquet", "2.parquet", "3.parquet"
    ]  # fmt: skip
    Path(folder, "2.parquet").write_bytes(b"cut")  # rewritten in place: start over
    names, reset = changes.WrittenOnce(fs, folder, "reader").new()
    assert reset and names == ["1.parquet", "2.parquet", "3.parquet"]


def _judged_once(world: tuple[Generated, Path], tmp_path: Path, now: int) -> tuple[str, Any]:
    """A copy of the world, judged once, its folders aged."""
    _, catalog = _copy(world, tmp_path)
    age(catalog)
    first = judge_catalog(catalog, now=now)
    age(catalog)
    return catalog, first


def test_the_judge_reads_only_the_groups_that_moved(
    world: tuple[Generated, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = 2_000_000_000
    catalog, first = _judged_once(world, tmp_path, now)
    scopes: list[list[str] | None] = []
    real_listing = judge_facts.listing

    def listing(c: str, groups: list[str] | None = None) -> dict[str, str]:
        scopes.append(None if groups is None else list(groups))
        return real_listing(c, groups)

    monkeypatch.setattr(judge_facts, "listing", listing)
    loaded: list[str] = []
    real_load = judge_facts.load

    def load(c: str, inputs: dict[str, str], *a: Any, **k: Any) -> Any:
        loaded.extend(inputs)
        return real_load(c, inputs, *a, **k)

    monkeypatch.setattr(judge_facts, "load", load)
    views = CatalogViews(catalog)
    try:
        rows = views.query('SELECT release_key, "group", posted_last FROM releases').to_pylist()
    finally:
        views.close()
    r = rows[0]
    write_batch(catalog, [{"release_key": bytes(r["release_key"]), "group": r["group"],
                           "checked_at": now, "verdict": "dead", "segments": 3, "missing": 3,
                           "posted_last": r["posted_last"]}], 1, 0)  # fmt: skip
    age(catalog)
    moved = judge_catalog(catalog, now=now + 60)
    assert [s for s in scopes if s != []] == [[r["group"]]]  # one group read, not the other
    # of it, the checks, the merge records and the partitions holding the checked release
    spans = {Path(p).stem for p in loaded if "/releases/" in p}
    every = {p.stem for p in Path(catalog, "releases", r["group"]).glob("*.parquet")}
    assert spans and len(spans) < len(every)
    assert moved.judged == 1 and moved.verdicts["dead"] == 1
    assert moved.live == first.live and moved.current["dead"] == 1 + first.current["dead"]
    # what the partial run left is what judging everything gives
    again = judge_catalog(catalog, everything=True, now=now + 60)
    assert not again.verdicts and not again.taken_back and again.current == moved.current


def test_health_reads_only_the_partitions_new_or_falling_due(
    world: tuple[Generated, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipelines.health import due as due_module

    _, catalog = _copy(world, tmp_path)
    age(catalog)
    views = CatalogViews(catalog)
    try:
        newest = int(views.query("SELECT max(posted_last) AS t FROM releases")["t"][0].as_py())
    finally:
        views.close()
    now = newest - 86_400  # only the older releases are due yet
    first = due_now(catalog, now, DEFAULT)
    read: list[str] = []
    real = due_module.group_releases

    def group_releases(c: str, g: str, damaged: list[str], parts: list[Any]) -> pa.Table:
        read.extend(p.path for p in parts)
        return real(c, g, damaged, parts)

    monkeypatch.setattr(due_module, "group_releases", group_releases)
    # a new partition lands in one group: of the groups, the new partition is read and
    # those holding a release due (and not checked), not the others
    group = first.candidates[0].group
    src = sorted(Path(catalog, "releases", group).glob("*.parquet"))[-1]
    fs, _ = open_fs(catalog)
    new = str(src.with_name("9000000-9000999.parquet"))
    atomic_put(fs, new, src.read_bytes())
    age(catalog)
    again = due_now(catalog, now, DEFAULT)
    every = list(Path(catalog).glob("releases/*/*.parquet"))
    assert new in read and len(set(read)) < len(every) - 1  # the new one and the due ones
    assert {c.release_key for c in again.candidates} == {c.release_key for c in first.candidates}


def test_health_checks_again_a_release_that_grew_since_its_check(tmp_path: Path) -> None:
    """The rule of `due_candidates` (a release checked while still being posted counts as
    never checked once a later version carries more) holds for the incremental pass."""
    from pipelines.catalog.schema import RELEASES

    day = 86_400

    def version(posted_last: int, first: int, last: int) -> None:
        row = dict.fromkeys(RELEASES.names)
        row.update(release_key=b"k" * 20, identity_key=b"k" * 20, group="g",
                   posted_last=posted_last, finished=False, written_range=first)  # fmt: skip
        table = pa.Table.from_pylist([row], RELEASES)
        write_partition(str(tmp_path), "releases", "g", first, last, table, tail=True)
        age(tmp_path)

    version(100, 0, 4)
    assert [c.release_key for c in due_now(str(tmp_path), 10 * day, DEFAULT).candidates] == [
        b"k" * 20
    ]
    write_batch(str(tmp_path), [{"release_key": b"k" * 20, "group": "g",
                                 "checked_at": 10 * day - 60, "verdict": "dead", "segments": 3,
                                 "missing": 1, "posted_last": 100}], 1, 0)  # fmt: skip
    age(tmp_path)
    assert due_now(str(tmp_path), 10 * day, DEFAULT).candidates == []  # a day to its recheck
    version(200, 5, 9)  # a later part adds its last articles
    assert [c.release_key for c in due_now(str(tmp_path), 10 * day, DEFAULT).candidates] == [
        b"k" * 20
    ]
