"""The judge's rules on small catalogs: each rule, its negative cases, and their order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipelines.judge.run import judge_catalog
from pipelines.judge.store import current_verdicts
from tests.judge_catalogs import (
    DAY,
    MB,
    NOW,
    Range,
    key_of,
    md5,
    mid,
    write_health,
    write_merges,
    write_results,
)

FILM = "Some.Film.2019.1080p.BluRay.x264-GRP"
SHOW = "Show.Name.S01E02.720p.HDTV.x264-GRP"
ALBUM = "Artist - Album (2012) [MP3 320]"


def verdicts(catalog: Path) -> dict[bytes, str]:
    rows = current_verdicts(str(catalog))
    return dict(zip(rows["release_key"].to_pylist(), rows["rule"].to_pylist(), strict=True))


def judged(catalog: Path, **kw: object) -> dict[bytes, str]:
    judge_catalog(str(catalog), now=NOW, **kw)  # type: ignore[arg-type]
    return verdicts(catalog)


def test_dead_by_health_by_the_probes_and_by_the_probe_cache(tmp_path: Path) -> None:
    r = Range(0, 999)
    by_health = r.release("h", FILM, [(f"{FILM}.mkv", 700 * MB)])
    healthy = r.release("ok", SHOW, [(f"{SHOW}.mkv", 300 * MB)])
    by_probes = r.release("p", "Linux.Distro.2020", [("d.part01.rar", 50 * MB)])
    r.probe(by_probes, probes=2, missing=2)
    some_gone = r.release("s", "Other.Thing.2020", [("o.part01.rar", 50 * MB)])
    r.probe(some_gone, probes=2, missing=1)
    by_cache = r.release(
        "c", "Cached.Thing", [("c.part01.rar", 50 * MB)],
        candidates=[("archive_first", "c.part01.rar")],
    )  # fmt: skip
    r.write(tmp_path)
    write_health(tmp_path, [{"release_key": by_health, "verdict": "dead"},
                            {"release_key": healthy, "verdict": "healthy"}])  # fmt: skip
    write_results(tmp_path, [{"message_id": mid("c", "c.part01.rar"), "status": "missing"}])
    found = judged(tmp_path)
    assert found == {by_health: "dead", by_probes: "dead", by_cache: "dead"}
    assert healthy not in found and some_gone not in found


def test_a_newer_healthy_check_outranks_old_missing_probes(tmp_path: Path) -> None:
    r = Range(0, 999)
    key = r.release("p", FILM, [(f"{FILM}.mkv", 700 * MB)])
    r.probe(key, probes=1, missing=1, probed_at=NOW - 100)
    r.write(tmp_path)
    write_health(tmp_path, [{"release_key": key, "verdict": "healthy", "checked_at": NOW}])
    assert judged(tmp_path) == {}


def test_fake_a_media_name_over_programs(tmp_path: Path) -> None:
    r = Range(0, 999)
    by_name = r.release("exe", FILM, [(f"{FILM}.exe", 5 * MB), (f"{FILM}.nfo", 2000)])
    listing = r.release(
        "arc", SHOW, [("show.part01.rar", 50 * MB), ("show.part02.rar", 50 * MB)],
        candidates=[("archive_first", "show.part01.rar")],
    )  # fmt: skip
    first_bytes = r.release(
        "mz", ALBUM, [("01 - Track.mp3", 9 * MB)], candidates=[("archive_first", "01 - Track.mp3")]
    )
    # negative: a film with a par2 and an nfo; a program under a program's name; a film
    # archive whose listing holds the film and a player beside it
    film = r.release(
        "film", FILM, [(f"{FILM}.mkv", 700 * MB), (f"{FILM}.par2", 40_000), (f"{FILM}.nfo", 900)],
        candidates=[("par2_index", f"{FILM}.par2")],
    )  # fmt: skip
    program = r.release("prog", "Some.Tool.v2.1.Setup", [("Some.Tool.v2.1.Setup.exe", 9 * MB)])
    mixed = r.release(
        "mixed", "Other.Film.2018.720p.WEB.x264", [("o.rar", 700 * MB)],
        candidates=[("archive_first", "o.rar")],
    )  # fmt: skip
    # a name that names no category (a scene album's), over an `.mp3` that is a program;
    # and a tool's `.bin` under the same kind of name (no media file: no fake)
    scene = "Golden_Animals-Under-2CD-2003-ENRAGED"
    bare_album = r.release("scene", scene, [(f"{scene}.mp3", 9 * MB)],
                           candidates=[("media_first", f"{scene}.mp3")])  # fmt: skip
    bare_tool = r.release("tool", "Some_Tool-Keygen-2003-CORE", [("tool.bin", 1 * MB)],
                          candidates=[("media_first", "tool.bin")])  # fmt: skip
    r.write(tmp_path)
    write_results(
        tmp_path,
        [
            {"message_id": mid("arc", "show.part01.rar"), "kind": "rar",
             "names": ["setup.exe", "Crack/keygen.exe", "readme.txt"]},
            {"message_id": mid("mz", "01 - Track.mp3"), "kind": "program",
             "yenc_name": "01 - Track.mp3"},
            {"message_id": mid("film", f"{FILM}.par2"), "kind": "par2",
             "names": [f"{FILM}.mkv", f"{FILM}.nfo"], "sizes": [700 * MB, 900],
             "hashes": [md5("film"), md5("nfo")]},
            {"message_id": mid("mixed", "o.rar"), "kind": "rar",
             "names": ["Other.Film.2018.720p.WEB.x264.mkv", "player.exe"]},
            {"message_id": mid("scene", f"{scene}.mp3"), "kind": "program",
             "yenc_name": f"{scene}.mp3"},
            {"message_id": mid("tool", "tool.bin"), "kind": "program", "yenc_name": "tool.bin"},
        ],
    )  # fmt: skip
    found = judged(tmp_path)
    assert found == {by_name: "fake", listing: "fake", first_bytes: "fake", bare_album: "fake"}
    assert not {film, program, mixed, bare_tool} & set(found)


def _family(r: Range, n: int, label: str, size: int = 700 * MB) -> list[bytes]:
    """n releases under different names of one media file (same par2 16 KiB hash and
    size), each with its own nfo of one shared text."""
    keys = []
    for i in range(n):
        name = f"Film.Number.{i}.{2000 + i}.1080p.x264-{label}"
        keys.append(
            r.release(f"{label}{i}", name, [(f"{name}.mkv", size), (f"{name}.par2", 30_000)],
                      candidates=[("par2_index", f"{name}.par2")])
        )  # fmt: skip
    return keys


def _family_results(label: str, n: int, size: int = 700 * MB) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        name = f"Film.Number.{i}.{2000 + i}.1080p.x264-{label}"
        rows.append(
            {"message_id": mid(f"{label}{i}", f"{name}.par2"), "kind": "par2",
             "names": [f"{name}.mkv", f"{name}.nfo"], "sizes": [size, 800],
             "hashes": [md5(f"file-{label}"), md5("the same nfo")]}
        )  # fmt: skip
    return rows


def test_repeated_at_twenty_releases_not_nineteen(tmp_path: Path) -> None:
    r = Range(0, 999)
    twenty = _family(r, 20, "A")
    nineteen = _family(r, 19, "B")
    r.write(tmp_path)
    write_results(tmp_path, _family_results("A", 20) + _family_results("B", 19))
    found = judged(tmp_path)
    assert found == dict.fromkeys(twenty, "repeated")
    assert not set(nineteen) & set(found)  # their shared nfo (39 releases) counts for nothing


def test_repeated_by_the_files_head_md5(tmp_path: Path) -> None:
    r = Range(0, 999)
    keys = [
        r.release(f"h{i}", f"Clip.{i}.2020.720p.x264", [(f"clip{i}.mkv", 90 * MB)],
                  candidates=[("archive_first", f"clip{i}.mkv")])
        for i in range(20)
    ]  # fmt: skip
    other = r.release("o", "Clip.Other.2020.720p.x264", [("o.mkv", 91 * MB)],
                      candidates=[("archive_first", "o.mkv")])  # fmt: skip
    r.write(tmp_path)
    rows = [{"message_id": mid(f"h{i}", f"clip{i}.mkv"), "kind": "media",
             "yenc_name": f"clip{i}.mkv", "yenc_size": 90 * MB, "head_md5": md5("clip")}
            for i in range(20)]  # fmt: skip
    # same first 16 KiB, another size: another file
    rows.append({"message_id": mid("o", "o.mkv"), "kind": "media", "yenc_name": "o.mkv",
                 "yenc_size": 91 * MB, "head_md5": md5("clip")})  # fmt: skip
    write_results(tmp_path, rows)
    found = judged(tmp_path)
    assert found == dict.fromkeys(keys, "repeated")
    assert other not in found


def test_locked_without_a_known_password(tmp_path: Path) -> None:
    r = Range(0, 999)
    locked = r.release("l", FILM, [("f.part01.rar", 50 * MB)])
    r.probe(locked, password=1)
    known = r.release("k", SHOW, [("s.part01.rar", 50 * MB)])
    r.probe(known, password=1, password_text="usenet")
    open_ = r.release("o", ALBUM, [("a.rar", 50 * MB)])
    r.probe(open_, password=0)
    inner = r.release("i", "Some.Pack.2020", [("p.rar", 50 * MB)])
    r.probe(inner, password=2)
    r.write(tmp_path)
    assert judged(tmp_path) == {locked: "locked"}


def test_unusable_after_a_day_when_nothing_names_it(tmp_path: Path) -> None:
    r = Range(0, 999)
    r.release("newest", FILM, [(f"{FILM}.mkv", 700 * MB)], posted_last=NOW)
    old = NOW - 2 * DAY
    hashed = "a8f3c9d2e1b7406f9e2d"
    unusable = r.release("u", hashed, [(f"{hashed}.bin", 9 * MB)], posted_last=old, pending=True)
    young = r.release("y", hashed + "1", [("x.bin", 9 * MB)], posted_last=NOW - 3600, pending=True)
    inner = r.release("i", hashed + "2", [("y.bin", 9 * MB)], posted_last=old, pending=True)
    r.probe(inner, inner_names=["Real.Movie.2019.1080p.mkv"], outcome="exhausted")
    merged = r.release("m", hashed + "3", [("z.bin", 9 * MB)], posted_last=old, pending=True)
    named = r.release("n", hashed + "4", [("w.bin", 9 * MB)], posted_last=old, pending=True)
    r.releases.append({**r.pending[-1], "name": "Named.By.Par2.2019", "source": "par2",
                       "readable": True, "members": None, "merged_into": None})  # fmt: skip
    unreadable = r.release("r", "Something", [("q.bin", 9 * MB)], posted_last=old, readable=False)
    r.write(tmp_path)
    write_merges(tmp_path, [{"from_key": key_of("other"), "into_key": merged}])
    found = judged(tmp_path)
    assert found == {unusable: "unusable", unreadable: "unusable"}
    assert not {young, inner, merged, named} & set(found)


def test_the_first_rule_that_matches_wins(tmp_path: Path) -> None:
    r = Range(0, 999)
    old = NOW - 2 * DAY
    # dead and fake
    dead_fake = r.release("df", FILM, [(f"{FILM}.exe", 5 * MB)])
    # fake and locked
    fake_locked = r.release("fl", SHOW, [(f"{SHOW}.exe", 5 * MB)])
    r.probe(fake_locked, password=1)
    # repeated and locked
    fam = _family(r, 20, "R")
    r.probe(fam[0], password=1)
    # locked and unusable
    lu = r.release("lu", "b7c1d0e9f8a2c3d4e5f6", [("h.bin", 9 * MB)], posted_last=old,
                   pending=True)  # fmt: skip
    r.probe(lu, password=1, outcome="exhausted")
    r.release("newest", "Newest.2020", [("n.mkv", MB)], posted_last=NOW)
    r.write(tmp_path)
    write_health(tmp_path, [{"release_key": dead_fake, "verdict": "dead"}])
    write_results(tmp_path, _family_results("R", 20))
    found = judged(tmp_path)
    assert found[dead_fake] == "dead"
    assert found[fake_locked] == "fake"
    assert found[fam[0]] == "repeated"
    assert found[lu] == "locked"


def test_a_merged_release_has_its_verdict_taken_back(tmp_path: Path) -> None:
    r = Range(0, 999)
    old = NOW - 2 * DAY
    piece = r.release("piece", "c4d5e6f7a8b9c0d1e2f3", [("p.bin", 9 * MB)], posted_last=old,
                      pending=True)  # fmt: skip
    r.release("newest", "Newest.2020", [("n.mkv", MB)], posted_last=NOW)
    r.write(tmp_path)
    assert judged(tmp_path) == {piece: "unusable"}
    # the merge: a tombstone of the piece in a later range, and its record
    later = Range(1000, 1999)
    later.releases.append({**r.pending[0], "name": "x", "readable": True, "members": None,
                           "merged_into": key_of("newest"), "written_range": 1000})  # fmt: skip
    later.write(tmp_path)
    write_merges(tmp_path, [{"from_key": piece, "into_key": key_of("newest")}], first=1000)
    s = judge_catalog(str(tmp_path), now=NOW)
    assert verdicts(tmp_path) == {}
    assert s.taken_back == 1


def test_a_probed_first_article_no_candidate_names_links_through_the_chunk_store(
    tmp_path: Path,
) -> None:
    r = Range(0, 999)
    # a film's lone .mkv: no probe candidate, but another pass read its first article
    key = r.release("lone", FILM, [(f"{FILM}.mkv", 700 * MB)])
    r.write(tmp_path)
    write_results(tmp_path, [{"message_id": mid("lone", f"{FILM}.mkv"), "kind": "program",
                              "yenc_name": f"{FILM}.mkv"}])  # fmt: skip
    assert judged(tmp_path) == {key: "fake"}
    # the link is kept: the chunk store is not read again for it
    files = tmp_path / "release_files"
    moved = tmp_path / "elsewhere"
    files.rename(moved)
    try:
        assert judged(tmp_path, everything=True) == {key: "fake"}
    finally:
        moved.rename(files)
    # a later range's file read the same way is found in the partitions written since
    later = Range(1000, 1999)
    other = later.release("later", SHOW, [(f"{SHOW}.mkv", 300 * MB)])
    later.write(tmp_path)
    write_results(tmp_path, [{"message_id": mid("later", f"{SHOW}.mkv"), "kind": "program",
                              "yenc_name": f"{SHOW}.mkv"}])  # fmt: skip
    assert judged(tmp_path) == {key: "fake", other: "fake"}


def test_a_family_that_falls_to_nineteen_has_its_verdicts_taken_back(tmp_path: Path) -> None:
    r = Range(0, 999)
    fam = _family(r, 20, "F")
    r.write(tmp_path)
    write_results(tmp_path, _family_results("F", 20))
    assert judged(tmp_path) == dict.fromkeys(fam, "repeated")
    # one of them goes into another release (a merge's tombstone)
    later = Range(1000, 1999)
    later.releases.append({**r.releases[0], "merged_into": key_of("elsewhere"),
                           "written_range": 1000})  # fmt: skip
    later.write(tmp_path)
    s = judge_catalog(str(tmp_path), now=NOW)
    assert verdicts(tmp_path) == {}
    assert s.taken_back == 20 and s.judged == 19


def test_release_keys_ending_in_zero_bytes_are_found() -> None:
    import pyarrow as pa

    from pipelines.judge.facts import KeyRows

    keys = [b"a" * 19 + b"\x00", b"a" * 19 + b"\x01", b"\x00" * 20, b"b" * 18 + b"\x00\x00"]
    rows = KeyRows(pa.table({"release_key": pa.array(keys, pa.binary(20)), "n": [0, 1, 2, 3]}))
    assert rows.positions(keys).tolist() == [0, 1, 2, 3]
    assert rows.position(b"a" * 20) is None
    assert rows.having([*keys, b"c" * 20]) == set(keys)
    rows.make(keys)
    assert [rows.get(k) for k in keys] == [{"release_key": k, "n": i} for i, k in enumerate(keys)]


def test_a_password_told_later_takes_back_locked_and_judges_it_alone(tmp_path: Path) -> None:
    """A release judged `locked`; then an NZB of its articles naming its password is
    imported (a spot's, an operator's): the next run judges that release alone and takes
    the verdict back, and the run after it judges nothing."""
    from pipelines.nzbimport.run import Importer

    r = Range(0, 999)
    locked = r.release("l", FILM, [("f.part01.rar", 50 * MB)])
    r.probe(locked, password=1)
    for i in range(20):
        r.release(f"o{i}", f"Other.Thing.{i}.2020", [(f"o{i}.mkv", 50 * MB)])
    r.write(tmp_path)
    assert judged(tmp_path) == {locked: "locked"}
    nzb = (
        '<?xml version="1.0"?><nzb xmlns="http://www.newzbin.com/DTD/2003/nzb"><head>'
        '<meta type="password">s3cret</meta></head>'
        f'<file poster="p &lt;p@x&gt;" date="{NOW}" subject="f.part01.rar"><groups>'
        "<group>alt.binaries.test</group></groups><segments>"
        f'<segment bytes="1" number="1">{mid("l", "f.part01.rar")}</segment>'
        "</segments></file></nzb>"
    ).encode()
    with Importer(str(tmp_path), now=NOW) as importer:
        out = importer.add("file", "film.nzb", nzb)
    assert (out.outcome, out.release_key) == ("linked", locked)
    s = judge_catalog(str(tmp_path), now=NOW)
    assert (s.judged, s.taken_back) == (1, 1) and verdicts(tmp_path) == {}
    assert judge_catalog(str(tmp_path), now=NOW).judged == 0
