"""The pending ladder over a replayed catalog, with articles answered by a scripted source.

What each article shows is scripted from the generator's truth (a hidden name per pending
upload, given by its par2 index or its first archive part), so these tests hold the
ladder, the cache and the catalog moves to the truth without the readers of real bodies
(tests/test_probe_end_to_end.py has those).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from pipelines.probe import inspection as ins
from pipelines.probe.cache import ProbeCache, results_folder
from pipelines.probe.inspection import Inspection
from pipelines.probe.ladder import SignatureCounts, sampled
from pipelines.probe.learned import password_of, usable_name
from pipelines.probe.run import probe_catalog
from pipelines.probe.source import OnResult
from tests.catalogs import shown_releases
from tests.corpora import indexed


class Scripted:
    """A source whose articles show what `answer` says; None: a transport failure."""

    def __init__(self, answer: Callable[[str], Inspection | None]) -> None:
        self.answer = answer
        self.asked: list[str] = []
        self.gave_up = False

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        for mid in message_ids:
            self.asked.append(mid)
            on_result(mid, self.answer(mid))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("ladder")
    return indexed(tmp, groups=2, articles=20_000, seed=3, range_size=8_000, chunk=2_000)


def _pending_uploads(out: Path) -> dict[str, tuple[int, set[str]]]:
    """message-id -> (upload id, every message-id of the upload) for pending uploads."""
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    by_mid = {}
    for u in truth:
        if not u["pending"]:
            continue
        mids = {m for f in u["files"] for m in f["message_ids"]}
        for m in mids:
            by_mid[m] = (u["upload_id"], mids)
    return by_mid


def _hidden(upload_id: int) -> str:
    return f"Hidden.Film.{upload_id}.2021.1080p.BluRay.x264-GRP"


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_named_pending_releases_enter_the_catalog_whole(built, tmp_path):
    out, built_catalog = built
    catalog = _copy(built_catalog, tmp_path / "cat")
    uploads = _pending_uploads(out)

    def answer(mid: str) -> Inspection:
        hit = uploads.get(mid)
        if hit is None:
            return Inspection(
                status=ins.OK, kind=ins.RAR, names=["x.mkv"], sizes=[5], encrypted=False
            )
        name = _hidden(hit[0])
        return Inspection(
            status=ins.OK, kind=ins.PAR2,
            names=[f"{name}.part01.rar", f"{name}.part02.rar", f"{name}.par2"], sizes=[9, 8, 1],
        )  # fmt: skip

    src = Scripted(answer)
    summary = probe_catalog(str(catalog), src)
    assert summary.outcomes.get("named", 0) > 0
    releases, segments = shown_releases(catalog)
    named = [r for r in releases if r["name"].startswith("Hidden.Film.")]
    by_key = {}
    for s in segments:
        by_key.setdefault(s["release_key"], set()).add((s["name"], s["n"]))
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    # the finished ones: a release still open at the corpus's end climbs once finished
    fs, root = open_fs(str(catalog))
    candidates = {
        m for p in list_table(fs, root, "probe_candidates", stat=False)
        for m in pq.read_table(p.path, columns=["message_id"])["message_id"].to_pylist()
    }  # fmt: skip
    expected = {
        _hidden(u["upload_id"]): u for u in truth
        if u["pending"] and u["complete"]
        and any(m in candidates for f in u["files"] for m in f["message_ids"])
    }  # fmt: skip
    assert len(expected) >= 5
    seen_names = [r["name"] for r in named]
    assert len(seen_names) == len(set(seen_names))  # one release an upload
    for r in named:
        u = expected.get(r["name"])
        if u is None:  # an incomplete pending upload: still one release
            continue
        files = {(f["name"], k + 1) for f in u["files"] for k in range(len(f["message_ids"]))}
        assert by_key[r["release_key"]] == files, r["name"]
        assert r["source"] == "par2" and r["readable"] and r["finished"]
    share = len([n for n in seen_names if n in expected]) / max(len(expected), 1)
    assert share >= 0.97, share
    # a second run: nothing due, nothing fetched
    asked = len(src.asked)
    again = probe_catalog(str(catalog), src)
    assert again.releases == 0 and len(src.asked) == asked


def test_transport_failures_leave_releases_waiting_and_a_later_run_finishes(built, tmp_path):
    _, built_catalog = built
    catalog = _copy(built_catalog, tmp_path / "cat")
    down = Scripted(lambda mid: None)
    first = probe_catalog(str(catalog), down)
    assert first.outcomes.get("waiting", 0) == first.releases > 0
    assert len(ProbeCache(str(catalog))) == 0
    up = Scripted(lambda mid: Inspection(status=ins.MISSING, detail="430"))
    second = probe_catalog(str(catalog), up)
    assert second.releases == first.releases
    assert second.outcomes.get("waiting", 0) == 0
    assert second.outcomes.get("exhausted", 0) > 0  # 430s name nothing
    # every article asked once: the 430s are results, stored
    assert len(set(up.asked)) == len(up.asked)
    third = probe_catalog(str(catalog), up)
    assert third.releases == 0


def test_a_limit_leaves_the_rest_waiting(built, tmp_path):
    _, built_catalog = built
    catalog = _copy(built_catalog, tmp_path / "cat")
    src = Scripted(lambda mid: Inspection(status=ins.ERROR, detail="garbage"))
    first = probe_catalog(str(catalog), src, limit=5)
    assert first.releases == 5
    rest = probe_catalog(str(catalog), src)
    fs, root = open_fs(str(catalog))
    rows = [r for p in list_table(fs, root, "release_probes", stat=False)
            for r in pq.read_table(p.path).to_pylist()]  # fmt: skip
    assert rest.releases > 0 and all(r["outcome"] != "waiting" for r in rows)
    assert len({r["release_key"] for r in rows}) == len(rows)


def test_a_damaged_cache_file_is_skipped_and_its_articles_probed_again(built, tmp_path):
    _, built_catalog = built
    catalog = _copy(built_catalog, tmp_path / "cat")
    src = Scripted(lambda mid: Inspection(status=ins.OK, kind=ins.OTHER))
    probe_catalog(str(catalog), src, limit=3)
    folder = Path(results_folder(str(catalog)))
    (batch,) = folder.iterdir()
    batch.write_bytes(batch.read_bytes()[:40])  # cut short, as by a full disk
    cache = ProbeCache(str(catalog))
    assert len(cache) == 0 and cache.damaged


def test_a_range_indexed_again_drops_what_the_article_pass_made_of_it(built, tmp_path):
    from pipelines.catalog.probe_outputs import drop_probe_outputs, outputs_within

    _, built_catalog = built
    catalog = _copy(built_catalog, tmp_path / "cat")
    probe_catalog(str(catalog), Scripted(lambda mid: Inspection(status=ins.MISSING)))
    fs, root = open_fs(str(catalog))
    (part, *_) = list_table(fs, root, "release_probes", stat=False)
    group = part.path.rsplit("/", 2)[-2]
    assert drop_probe_outputs(str(catalog), group, part.first, part.last) >= 1
    assert not outputs_within(str(catalog), group, part.first, part.last)


def test_signatures_discard_and_sample():
    counts = SignatureCounts()
    for i in range(100):
        counts.count("ngpost", "a.b.c", "bob", named=i == 0)  # 1 % named: kept
    assert not counts.dropped(("ngpost", "a.b.c", "bob"))
    counts = SignatureCounts()
    for _ in range(200):
        counts.count("ngpost", "a.b.c", "bob", named=False)
    assert counts.dropped(("ngpost", "a.b.c", "bob")) and counts.dropped(("ngpost", "a.b.c", ""))
    share = sum(sampled(hashlib.sha1(str(i).encode()).digest()) for i in range(20_000)) / 20_000
    assert 0.04 < share < 0.06


def _ok(kind: str, names: list[str], sizes: list[int], **kw: object) -> Inspection:
    return Inspection(status=ins.OK, kind=kind, names=names, sizes=sizes, **kw)  # type: ignore[arg-type]


def test_the_usable_name_is_the_largest_plain_file():
    r = _ok(
        ins.PAR2,
        ["Big.Film.2020.part1.rar", "Big.Film.2020.par2", "Big.Film.2020.nfo"],
        [10, 99, 99],
    )
    assert usable_name([r]) == ("Big.Film.2020", "par2")
    random_set = _ok(ins.PAR2, ["a8f9e0b1c2d3e4f5a6b7c8d9e0f1a2b3.part1.rar"], [10])
    listing = _ok(ins.RAR, ["folder/Show.S01E02.720p.mkv", "Show.sample.mkv"], [900, 10])
    assert usable_name([random_set, listing]) == ("Show.S01E02.720p", "archive")
    assert usable_name([random_set]) is None
    # the random names a set made after renaming lists: digits, or capitals in runs
    for token in ("F6slaHCCVE9YLLoh", "DqyddHSQAbAVKynm", "hdabbrbhkiwwq9yuzfcahpo58bpedj"):
        assert usable_name([_ok(ins.PAR2, [f"{token}.part02.rar"], [10])]) is None
    camel = _ok(ins.PAR2, ["TheGreatGatsbyAudiobook.part1.rar", "SHOUTINGNAMES.mkv"], [10, 5])
    assert usable_name([camel]) == ("TheGreatGatsbyAudiobook", "par2")
    nfo = Inspection(status=ins.OK, kind=ins.NFO, nfo_title="Some.Album-GRP")
    assert usable_name([random_set, nfo]) == ("Some.Album-GRP", "nfo")
    bad = Inspection(status=ins.BAD_CRC, names=["Real.Name.mkv"], sizes=[1])
    assert usable_name([bad]) is None


def test_passwords():
    assert password_of([]) is None
    assert password_of([_ok(ins.PAR2, ["x.rar"], [1])]) is None
    assert password_of([_ok(ins.RAR, ["x.mkv"], [1], encrypted=False)]) == 0
    assert password_of([_ok(ins.RAR, [], [], encrypted=True)]) == 1
    assert password_of([_ok(ins.ZIP, ["in.rar"], [1], encrypted=False, inner_archive=True)]) == 2
    assert password_of([_ok(ins.SEVEN_ZIP, ["a"], [1], encrypted=None)]) is None


def test_a_named_release_climbs_on_to_its_archive_for_the_password(tmp_path):
    """The par2 index names it, its password is unknown: the first archive volume is read
    too (a passworded release is locked only when that is known); one whose name came
    with a known password stops there."""
    from pipelines.probe.ladder import NAMED, Climb, climb_all

    answers = {
        "par2@x": _ok(ins.PAR2, ["Big.Film.2020.part1.rar"], [10]),
        "rar@x": _ok(ins.RAR, ["Big.Film.2020.mkv"], [10], encrypted=True),
        "open@x": _ok(ins.RAR, ["Other.Film.2021.mkv"], [10], encrypted=False),
        "tail@x": _ok(ins.SEVEN_ZIP, ["never.read"], [1]),
    }
    source = Scripted(answers.get)
    locked = Climb(b"k" * 20, "g", True, "poster", "tool", 0,
                   [(1, ["par2@x"]), (2, ["rar@x"])])  # fmt: skip
    plain = Climb(b"l" * 20, "g", True, "poster", "tool", 0,
                  [(2, ["open@x"]), (3, ["tail@x"])])  # fmt: skip
    climb_all([locked, plain], source, ProbeCache(str(tmp_path)), SignatureCounts())
    assert locked.outcome == plain.outcome == NAMED
    assert locked.named == ("Big.Film.2020", "par2") and password_of(locked.read) == 1
    assert plain.named == ("Other.Film.2021", "archive") and password_of(plain.read) == 0
    assert sorted(source.asked) == ["open@x", "par2@x", "rar@x"]  # no tail: already known


def test_a_bare_film_s_largest_video_is_a_candidate():
    """Only its first bytes tell a film from a program under the film's name (the
    judge's fake rule); a release with an archive reads the archive instead."""
    from kernels import subject as sk
    from pipelines.index.probes import Target, choose

    def target(name: str, ext_class: int, nbytes: int) -> Target:
        return Target(name.encode(), ext_class, nbytes, 0, False, f"<{name}@x>".encode(),
                      b"", 1)  # fmt: skip

    film = [target("Film.2020.mkv", sk.VIDEO, 900), target("Film.2020.sample.mkv", sk.VIDEO, 9),
            target("Film.2020.par2", sk.PAR2_INDEX, 1)]  # fmt: skip
    kinds = {kind: name for kind, name, _, _ in choose(film, 3, readable=True)}
    assert kinds == {"par2_index": b"Film.2020.par2", "media_first": b"Film.2020.mkv"}
    packed = [target("Film.2020.part01.rar", sk.RAR_FIRST, 900), *film]
    assert "media_first" not in {k for k, *_ in choose(packed, 4, readable=True)}
    album = [target("01 - Song.mp3", sk.AUDIO, 90), target("02 - Longer.mp3", sk.AUDIO, 99)]
    assert choose(album, 2, readable=True)[0][:2] == ("media_first", b"02 - Longer.mp3")


def test_a_lone_random_7z_volume_has_its_head_read_too():
    """A later 7z volume posted alone under a random name: its tail (the 7z header, if
    it is the last) and its first part (the head a par2 set's hash describes)."""
    from kernels import subject as sk
    from pipelines.index.probes import Target, choose

    volume = Target(b"Pzz8IFjAPk07H00ZC8903nT.7z.003", sk.ARCHIVE_VOL, 900, 3, True,
                    b"head@x", b"tail@x", 131)  # fmt: skip
    assert {(k, mid) for k, _, mid, _ in choose([volume], 1, readable=False)} == {
        ("sevenzip_last", "tail@x"), ("lone_random", "head@x")
    }  # fmt: skip
    first = volume._replace(name=b"Pzz8IFjAPk07H00ZC8903nT.7z.001", ext_class=sk.RAR_FIRST)
    assert "lone_random" not in {k for k, *_ in choose([first], 1, readable=False)}
