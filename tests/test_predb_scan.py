"""The matcher and the seed's scan schedule, over hand-made catalogs and a fake clock."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.catalog.partitions import list_group
from pipelines.catalog.schema import RELEASE_PROBES
from pipelines.catalog.versions import newest_rows
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import open_fs
from pipelines.predb import queue as Q
from pipelines.predb.importer import import_files
from pipelines.predb.scan import Scanner
from pipelines.predb.settings import DEFAULT
from pipelines.predb.store import read_batches
from tests.predb_catalog import GROUP, MIB, files, key_of, pending, pres_file, release, write_range

SIZE = 100 * MIB
T0 = 1_700_000_000


class Clock:
    def __init__(self, t: int) -> None:
        self.t = t

    def __call__(self) -> float:
        return float(self.t)


def _import(
    tmp: Path, cat: str, pres: list[dict[str, Any]], live: bool = False, at: int = T0
) -> None:
    path = pres_file(tmp / f"p{len(list(tmp.glob('p*.jsonl')))}.jsonl", pres)
    import_files(cat, [path], live=live, now=lambda: at)


def _shown(cat: str) -> dict[bytes, dict[str, Any]]:
    """The newest version of every release (the catalog's read rule), by key."""
    fs, root = open_fs(cat)
    tables = [pq.read_table(p.path) for p in list_group(fs, root, "releases", GROUP)]
    rows = pa.concat_tables(tables, promote_options="permissive")
    return {
        rows["release_key"][i].as_py(): rows.slice(i, 1).to_pylist()[0]
        for i in newest_rows(rows).tolist()
    }


def _links(cat: str) -> dict[bytes, str]:
    t = read_batches(cat, "pre_links")
    return dict(zip(t["release_key"].to_pylist(), t["method"].to_pylist(), strict=True))


def _outcomes(cat: str) -> list[str]:
    return read_batches(cat, "pre_outcomes")["outcome"].to_pylist()


TITLES = [
    "Show.Name.S01E01.720p.HDTV.x264-GRP",
    "Movie.Title.2020.1080p.BluRay.x264-SCENE",
    "Other.Thing.2019.DVDRip.x264-XYZ",
    "Wrong.Size.2021.720p.WEB.h264-ABC",
    "Inner.Name.2018.1080p.WEB.h264-INN",
    "Lower.Hash.2017.720p.HDTV.x264-LOW",
]


def test_each_method_links_and_renames_and_size_mismatch_never_does(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    _import(tmp_path, cat, [{"title": t, "time": T0 - 100_000, "size": SIZE} for t in TITLES])
    md5 = hashlib.md5(TITLES[1].encode()).hexdigest()
    sha = hashlib.sha256(TITLES[5].lower().encode()).hexdigest()
    write_range(
        cat, 0, 999,
        [release("a", TITLES[0], SIZE, 0), release("c", "some random words", SIZE, 20),
         release("d", TITLES[3], SIZE // 2, 30), release("f", "x", SIZE, 50)],
        [pending("b", md5, SIZE, 10), pending("e", "a1b2c3d4e5", SIZE, 40)],
        files("a", [TITLES[0] + ".part1.rar"], SIZE) + files("b", [md5 + ".part01.rar"], SIZE)
        + files("c", [TITLES[2] + ".part01.rar", TITLES[2] + ".vol0+1.par2"], SIZE)
        + files("d", [TITLES[3] + ".rar"], SIZE // 2) + files("e", ["a1b2c3d4e5.rar"], SIZE)
        + files("f", [sha + ".mkv"], SIZE),
    )  # fmt: skip
    probes = [
        {k: None for k in RELEASE_PROBES.names}
        | {
            "release_key": key_of("e"),
            "group": GROUP,
            "pending": True,
            "outcome": "exhausted",
            "inner_names": [TITLES[4] + ".mkv", "sample.mkv"],
            "probed_at": T0,
            "written_range": 0,
        }
    ]
    write_partition(
        cat, "release_probes", GROUP, 0, 999, pa.Table.from_pylist(probes, schema=RELEASE_PROBES)
    )
    summary = Scanner(cat, DEFAULT, Clock(T0)).cycle()
    links = _links(cat)
    assert links == {
        key_of("a"): "title:release", key_of("b"): "md5:release", key_of("c"): "title:file",
        key_of("e"): "title:inner", key_of("f"): "sha256_lower:file",
    }  # fmt: skip
    shown = _shown(cat)
    for label, title in zip("abcef", [TITLES[i] for i in (0, 1, 2, 4, 5)], strict=True):
        assert (shown[key_of(label)]["name"], shown[key_of(label)]["source"]) == (title, "predb")
    assert shown[key_of("d")]["source"] == "subject"  # half the size: never renamed
    assert summary.outcomes["complete"] == 5 and summary.outcomes["size_mismatch"] == 1


def test_two_pres_never_name_one_release_and_one_pre_links_reposts(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    a, b = "First.Pre.2020.720p.WEB.h264-AAA", "Second.Pre.2020.720p.WEB.h264-BBB"
    _import(tmp_path, cat, [{"title": t, "time": T0 - 100_000, "size": SIZE} for t in (a, b)])
    # one release whose name is pre a and whose file is pre b: the name wins
    write_range(cat, 0, 999, [release("r1", a, SIZE, 0)], [], files("r1", [b + ".rar"], SIZE))
    clock = Clock(T0)
    scanner = Scanner(cat, DEFAULT, clock)
    scanner.cycle()
    assert _links(cat) == {key_of("r1"): "title:release"}
    clock.t += 60
    write_range(
        cat, 1000, 1999, [release("r2", a, SIZE, 1000)], [], files("r2", [a + ".rar"], SIZE)
    )
    scanner.cycle()
    assert set(_links(cat)) == {key_of("r1"), key_of("r2")}  # the repost links to a too
    assert _shown(cat)[key_of("r1")]["name"] == a
    clock.t += 60
    assert scanner.cycle().partitions == 0  # nothing new: nothing read (the stamps settle)
    before = _files(cat)
    clock.t += 60
    assert scanner.cycle().partitions == 0
    assert _files(cat) == before  # an idle cycle writes nothing


def _files(cat: str) -> dict[str, int]:
    """Every file of the catalog and its modification time."""
    return {str(p): p.stat().st_mtime_ns for p in Path(cat).rglob("*") if p.is_file()}


P1_DUE = [600, 900, 1800, 3600, 7200, 18000, 61200, 147600]


def test_every_p1_step_at_its_time_then_not_found_full(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    _import(tmp_path, cat, [{"title": "Live.Pre.2026.720p.WEB.h264-LIVE", "time": T0}], live=True)
    clock = Clock(T0)
    scanner = Scanner(cat, DEFAULT, clock)
    assert scanner.cycle().entered == {"P1": 1}
    for step, due in enumerate(P1_DUE, 1):
        clock.t = T0 + due - 1
        assert scanner.cycle().scanned == 0, f"step {step} ran early"
        clock.t = T0 + due
        s = scanner.cycle()
        assert s.scanned == 1, f"step {step} did not run at +{due}"
        want = "not_found_full" if step == len(P1_DUE) else "not_found"
        assert s.outcomes == {want: 1}
    assert len(Q.load(cat)) == 0


def test_a_live_pre_found_midway_completes_at_once(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    title = "Live.Found.2026.1080p.WEB.h264-LIVE"
    _import(tmp_path, cat, [{"title": title, "time": T0, "size": "100MB"}], live=True)
    clock = Clock(T0 + 600)
    scanner = Scanner(cat, DEFAULT, clock)
    scanner.cycle()
    clock.t = T0 + 700  # between steps: the header pass's new release completes it
    write_range(cat, 0, 999, [release("r", title, SIZE, 0)], [], files("r", [title + ".rar"], SIZE))
    s = scanner.cycle()
    assert s.outcomes == {"complete": 1} and s.scanned == 0
    assert len(Q.load(cat)) == 0


def test_live_pres_expire_and_nukes_end_waiting_pres(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    pres = [{"title": "Will.Expire-GRP", "time": T0}, {"title": "Will.Nuke-GRP", "time": T0}]
    _import(tmp_path, cat, pres, live=True)
    clock = Clock(T0)
    scanner = Scanner(cat, DEFAULT, clock)
    scanner.cycle()
    clock.t = T0 + 60
    _import(
        tmp_path, cat, [{"title": "Will.Nuke-GRP", "time": T0, "nuked": 2, "reason": "bad.rip"}]
    )
    assert scanner.cycle().outcomes == {"nuked": 1}
    clock.t = T0 + 31 * 86400  # the process was down past the month
    assert scanner.cycle().outcomes == {"expired": 1}


def test_size_mismatches_retry_30_minutes_apart_then_cap(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    title = "Sized.Wrong.2020.720p.WEB.h264-SZ"
    _import(tmp_path, cat, [{"title": title, "time": T0 - 30 * 86400, "size": "1000MB"}])
    write_range(
        cat,
        0,
        999,
        [release("r", title, 700 * MIB, 0)],
        [],
        files("r", [title + ".rar"], 700 * MIB),
    )
    clock = Clock(T0)
    scanner = Scanner(cat, DEFAULT, clock)
    assert scanner.cycle().outcomes == {"size_mismatch": 1}
    clock.t += 1799
    assert scanner.cycle().scanned == 0
    clock.t += 1
    assert scanner.cycle().outcomes == {"size_mismatch": 1}
    clock.t += 1800
    assert scanner.cycle().outcomes == {"size_mismatch_cap": 1}
    assert _links(cat) == {}


def test_the_reaper_gives_a_stuck_scan_back_without_its_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat = str(tmp_path / "cat")
    _import(tmp_path, cat, [{"title": "Stuck.Scan-GRP", "time": T0}], live=True)
    clock = Clock(T0 + 600)
    scanner = Scanner(cat, DEFAULT, clock)

    def crash(self: Any, keys: np.ndarray) -> None:
        raise RuntimeError("killed mid-scan")

    from pipelines.predb import names as N

    with monkeypatch.context() as m:
        m.setattr(N.NamesIndex, "find", crash)
        with pytest.raises(RuntimeError):
            scanner.cycle()
    q = Q.load(cat)
    assert (int(q["status"][0]), int(q["attempts"][0])) == (2, 1)  # claimed, then died
    clock.t += 299
    assert Scanner(cat, DEFAULT, clock).cycle().scanned == 0  # not stuck long enough yet
    clock.t += 2
    s = Scanner(cat, DEFAULT, clock).cycle()
    assert s.outcomes == {"reaped": 1, "not_found": 1} and s.scanned == 1
    q = Q.load(cat)
    assert int(q["attempts"][0]) == 1  # the first step, taken once
    assert int(q["due"][0]) == clock.t + 300  # the next, its gap after the late one


def test_a_second_scan_at_once_is_busy_and_no_pres_writes_nothing(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    from pipelines.predb.scan import _lock

    assert Scanner(cat, DEFAULT, Clock(T0)).cycle().no_pres
    assert not Path(cat).exists()  # a catalog without pres (or a wrong path): nothing made
    _import(tmp_path, cat, [{"title": "Any.Pre-GRP", "time": T0}])

    with _lock(cat) as mine:
        assert mine
        assert Scanner(cat, DEFAULT, Clock(T0)).cycle().busy


def test_a_killed_cycle_after_its_version_links_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat = str(tmp_path / "cat")
    title = "Killed.Once.2020.720p.WEB.h264-KO"
    _import(tmp_path, cat, [{"title": title, "time": T0 - 100_000, "size": SIZE}])
    write_range(
        cat, 0, 999, [release("r", title + "x", SIZE, 0)], [], files("r", [title + ".rar"], SIZE)
    )
    from pipelines.predb import record

    def die(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("killed after the versions")

    with monkeypatch.context() as m:
        m.setattr(record, "write_batch", die)
        with pytest.raises(RuntimeError):
            Scanner(cat, DEFAULT, Clock(T0)).cycle()
    Scanner(cat, DEFAULT, Clock(T0 + 60)).cycle()
    assert _links(cat) == {key_of("r"): "title:file"}
    fs, root = open_fs(cat)
    predb_files = [p for p in list_group(fs, root, "releases", GROUP) if p.predb]
    assert len(predb_files) == 1  # the second cycle found its version written: none again
    assert _shown(cat)[key_of("r")]["name"] == title


def test_a_request_id_with_its_group_links_the_pre(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    title = "Requested.Film.2019.1080p.BluRay.x264-REQ"
    pre = {
        "title": title,
        "time": T0 - 100_000,
        "size": SIZE,
        "requestid": 123456,
        "groupname": GROUP,
    }
    other = {
        "title": "Other.Group.Req-REQ",
        "time": T0 - 100_000,
        "requestid": 777,
        "groupname": "a.b.x",
    }
    _import(tmp_path, cat, [pre, other])
    rows = files("r", ["a1b2c3.part01.rar"], SIZE)
    rows[0]["subject"] = (
        '[123456]-[FULL]-[#a.b.teevee@EFNet]-[ a1b2c3 ]-[01/50] - "a1b2c3.part01.rar" yEnc (1/1)'
    )
    other_rows = files("o", ["x9.rar"], SIZE)
    other_rows[0]["subject"] = (
        '[777]-[FULL]-[#a.b.x@EFNet]-[ x9 ]-[1/1] - "x9.rar" yEnc (1/1)'  # another group's id
    )
    write_range(
        cat,
        0,
        999,
        [release("r", "a1b2c3", SIZE, 0), release("o", "x9", SIZE, 20)],
        [],
        rows + other_rows,
    )
    Scanner(cat, DEFAULT, Clock(T0)).cycle()
    assert _links(cat) == {key_of("r"): "request"}
    assert _shown(cat)[key_of("r")]["name"] == title


def test_a_size_told_later_gates_the_match(tmp_path: Path) -> None:
    """A pre learned without its size, then filled in (an IRC `UPD:`): the size gate
    holds against the size told, so a wrong-sized posting never completes it."""
    cat = str(tmp_path / "cat")
    title = "Told.Later.2022.1080p.WEB.h264-TL"
    _import(tmp_path, cat, [{"title": title, "time": T0 - 600}], live=True)
    _import(tmp_path, cat, [{"title": title, "time": T0 - 600, "size": "1000MB"}], live=True)
    write_range(cat, 0, 999, [release("r", title, 700 * MIB, 0)], [],
                files("r", [title + ".rar"], 700 * MIB))  # fmt: skip
    assert Scanner(cat, DEFAULT, Clock(T0)).cycle().outcomes == {"size_mismatch": 1}
    assert _links(cat) == {}


def test_what_a_cycle_has_taken_stays_small_over_many_batches(tmp_path: Path) -> None:
    """A listener writes a batch every 30 seconds for months: the scan's memo and the
    lookup's covers keep a watermark and the last hour's names, not every name; a batch
    written after is still taken, and none is taken twice."""
    from pipelines.predb import lookup as L
    from pipelines.predb.store import NAMING_LAG_NS, DoneBatches, get_json

    done = DoneBatches()
    base = 1_800_000_000 * 10**9
    names = [f"{base + i * 30 * 10**9:020d}-7.parquet" for i in range(3 * 2880)]  # 3 days
    done.add(names)
    assert all(n in done for n in names) and len(done.names) <= 121
    late = f"{base + 3 * 86400 * 10**9 - NAMING_LAG_NS // 2:020d}-8.parquet"
    assert late not in done  # renamed late, named within the last hour: still to take
    assert DoneBatches(names[:5]).names == set(names[:5])  # an earlier memo's plain list

    cat = str(tmp_path / "cat")
    for i in range(40):
        _import(tmp_path, cat, [{"title": f"Batch.Title.{i}.2020.720p.WEB.h264-B", "time": T0}],
                live=True, at=T0 + i)  # fmt: skip
    scanner = Scanner(cat, DEFAULT, Clock(T0 + 60))
    assert scanner.cycle().entered == {"P1": 40}
    memo = get_json(cat, "scan.json")
    assert memo is not None and set(memo["events"]) == {"upto", "names"}
    _import(tmp_path, cat, [{"title": "One.More.2021.720p.WEB.h264-B", "time": T0}], live=True)
    assert Scanner(cat, DEFAULT, Clock(T0 + 120)).cycle().entered == {"P1": 1}
    lookup = L.load(cat)
    L.rebuild(lookup)
    assert L.load(cat).n == 41 and not L.catch_up(L.load(cat))


def _requested_release(cat: str, first: int, key: str, rid: int) -> None:
    rows = files(key, [f"h{key}9f2.part01.rar"], SIZE)
    rows[0]["subject"] = (
        f'[{rid}]-[FULL]-[#a.b.teevee@EFNet]-[ h{key}9f2 ]-[01/50] - "x" yEnc (1/1)'
    )
    write_range(cat, first, first + 999, [release(key, f"h{key}9f2", SIZE, first)], [], rows)


@pytest.mark.parametrize("rebuilt", [False, True])
def test_a_request_id_told_later_links_by_request(tmp_path: Path, rebuilt: bool) -> None:
    """A pre learned bare, its request id told by a later line (an IRC `UPD:` with
    `RQ:`): a release posted for that request links to it, whether it came before the
    line (the pre's scheduled scan) or after (the new release's names); a rebuilt lookup
    keeps the id and its key, and a line telling another id later changes nothing."""
    from pipelines.predb import keys as K
    from pipelines.predb import lookup as L

    cat = str(tmp_path / "cat")
    early, late = "Told.Request.2023.1080p.WEB.h264-TR", "Other.Request.2023.720p.WEB.h264-TR"
    _import(tmp_path, cat, [{"title": t, "time": T0 - 600} for t in (early, late)], live=True)
    clock = Clock(T0)
    scanner = Scanner(cat, DEFAULT, clock)
    _requested_release(cat, 0, "a", 4242)  # posted before its request id was told
    scanner.cycle()
    assert _links(cat) == {}
    told = [
        {"title": early, "time": T0 - 600, "requestid": 4242, "groupname": GROUP},
        {"title": late, "time": T0 - 600, "requestid": 5151, "groupname": GROUP},
    ]
    _import(tmp_path, cat, told, live=True)
    _import(tmp_path, cat, [{"title": late, "time": T0 - 600, "requestid": 9, "groupname": GROUP}])
    if rebuilt:
        lookup = L.load(cat)
        L.rebuild(lookup)
        again = L.load(cat)
        row = again.rows_of_titles([late])[0]
        assert row is not None and again.pre(row)["request_id"] == 5151
        _, rows, variants = again.find([K.request_key(GROUP, 5151)])
        assert (rows.tolist(), variants.tolist()) == ([row], [K.REQUEST]) and not again.late
        scanner = Scanner(cat, DEFAULT, clock)
    clock.t += 3600  # the early pre's next scheduled scan
    scanner.cycle()
    assert _links(cat) == {key_of("a"): "request"}
    _requested_release(cat, 1000, "b", 5151)  # posted after
    scanner.cycle()
    assert _links(cat) == {key_of("a"): "request", key_of("b"): "request"}
    assert _shown(cat)[key_of("b")]["name"] == late


def test_inner_names_found_in_a_later_cycle_take_their_release_size(tmp_path: Path) -> None:
    """The article pass names a release the header pass wrote an earlier cycle: the
    cycle that reads the probes looks the release's size and span up in its partitions,
    so the right size links and a wrong size is gated."""
    cat = str(tmp_path / "cat")
    good, small = "Inner.Later.2024.1080p.WEB.h264-IL", "Inner.Small.2024.1080p.WEB.h264-IL"
    _import(
        tmp_path, cat, [{"title": t, "time": T0 - 100_000, "size": SIZE} for t in (good, small)]
    )
    write_range(
        cat, 0, 999, [],
        [pending("p", "f0e1d2c3b4", 0, 10), pending("q", "a9b8c7d6e5", 0, 20)],
        files("p", ["f0e1d2c3b4.part01.rar", "f0e1d2c3b4.vol00+1.par2"], SIZE)
        + files("q", ["a9b8c7d6e5.rar"], SIZE // 3),
    )  # fmt: skip
    clock = Clock(T0)
    scanner = Scanner(cat, DEFAULT, clock)
    scanner.cycle()
    assert _links(cat) == {}
    probes = [
        {k: None for k in RELEASE_PROBES.names}
        | {"release_key": key_of(label), "group": GROUP, "pending": True, "outcome": "named",
           "inner_names": [title + ".mkv"], "probed_at": T0, "written_range": 0}
        for label, title in (("p", good), ("q", small))
    ]  # fmt: skip
    write_partition(
        cat, "release_probes", GROUP, 0, 999, pa.Table.from_pylist(probes, schema=RELEASE_PROBES)
    )
    clock.t += 60
    scanner.cycle()
    assert _links(cat) == {key_of("p"): "title:inner"}
    assert _shown(cat)[key_of("p")]["name"] == good
