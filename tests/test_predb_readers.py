"""What readers get of the PreDB: Newznab attributes, the release page, the PreDB page,
the status page."""

from __future__ import annotations

import re
import time
from pathlib import Path

from pipelines.predb.importer import import_files
from pipelines.predb.scan import Scanner
from pipelines.predb.settings import DEFAULT
from tests.catalogs import app_client
from tests.predb_catalog import MIB, files, key_of, pres_file, release, write_range

T0 = 1_700_000_000
GOOD = "Reader.Show.S01E02.720p.HDTV.x264-RDR"
NUKED = "Nuked.Movie.2020.1080p.BluRay.x264-NKD"
PLAIN = "Some.Unknown.Thing-UNK"


def _catalog(tmp_path: Path) -> str:
    cat = str(tmp_path / "cat")
    pres = [
        {
            "title": GOOD,
            "time": T0 - 90_000,
            "size": "100MB",
            "category": "TV-X264",
            "source": "orlydb",
        },
        {"title": NUKED, "time": T0 - 90_000, "size": "100MB", "nuked": 2, "reason": "bad.ivtc"},
        {"title": PLAIN, "time": T0 - 90_000, "size": "100MB", "category": "EBOOK"},
        {"title": "Never.Posted-NP", "time": T0 - 90_000},
    ]
    import_files(cat, [pres_file(tmp_path / "p.jsonl", pres)])
    rels = [release("g", GOOD, 100 * MIB, 0), release("n", "obfuscated thing", 100 * MIB, 20),
            release("p", PLAIN, 100 * MIB, 40, category=0)]  # fmt: skip
    rows = files("g", [GOOD + ".rar"], 100 * MIB) + files("n", [NUKED + ".part01.rar"], 100 * MIB)
    write_range(cat, 0, 999, rels, [], rows + files("p", [PLAIN + ".epub"], 100 * MIB))
    Scanner(cat, DEFAULT, lambda: T0).cycle()
    return cat


def test_newznab_attrs_release_page_predb_and_status_pages(tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    with app_client(cat) as client:
        feed = client.get("/api", params={"t": "search", "apikey": "k1", "extended": "1"}).text
        items = {
            m.group(1): m.group(0)
            for m in re.finditer(r"<item><title>([^<]*)</title>.*?</item>", feed, re.S)
        }
        assert set(items) >= {GOOD, NUKED, PLAIN}
        assert '<newznab:attr name="prematch" value="1"/>' in items[GOOD]
        assert '<newznab:attr name="haspretime" value="1"/>' in items[GOOD]
        pretime = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(T0 - 90_000))
        assert f'<newznab:attr name="pretime" value="{pretime}"/>' in items[GOOD]
        assert 'name="nuked"' not in items[GOOD]
        assert '<newznab:attr name="nuked" value="1"/>' in items[NUKED]
        assert '<newznab:attr name="nukereason" value="bad.ivtc"/>' in items[NUKED]
        # the name gave no category: the PreDB's section (EBOOK) did
        assert '<newznab:attr name="category" value="7020"/>' in items[PLAIN]
        page = client.get(f"/release/{key_of('n').hex()}").text
        assert 'id="pre-method">title:file<' in page and 'id="nuke-reason">bad.ivtc<' in page
        page = client.get(f"/release/{key_of('g').hex()}").text
        assert 'id="pre-source">orlydb<' in page
        predb = client.get("/predb").text
        assert "Never.Posted-NP" in predb and 'id="terminal-complete">3<' in predb
        only = client.get("/predb", params={"state": "retrying"}).text  # its second scan waits
        assert "Never.Posted-NP" in only and GOOD not in only
        status = client.get("/status").text
        assert 'id="predb-method-title-release">2<' in status


def test_a_search_for_a_known_pre_not_in_the_catalog_queues_it_at_p2(tmp_path: Path) -> None:
    from pipelines.predb.requests import looks_like_scene_title

    cat = _catalog(tmp_path)
    wanted = "Wanted.Film.1999.1080p.BluRay.x264-OLD"
    import_files(cat, [pres_file(tmp_path / "old.jsonl", [{"title": wanted, "time": 900_000_000}])])
    scanner = Scanner(cat, DEFAULT, lambda: T0 + 60)
    assert scanner.cycle().outcomes["not_found_full"] == 1  # historical: one scan, nothing
    with app_client(cat) as client:
        for q in (wanted, wanted, "Unknown.Film.2001.720p.WEB-NOPE", "some words"):
            r = client.get("/api", params={"t": "search", "apikey": "k1", "q": q})
            assert r.status_code == 200 and "<item>" not in r.text and "<error" not in r.text
    clock = {"t": T0 + 120}
    s = Scanner(cat, DEFAULT, lambda: clock["t"]).cycle()
    assert s.entered == {"P2": 1} and s.scanned == 1  # asked once, scanned at once
    assert s.outcomes == {"not_found_full": 1}
    assert looks_like_scene_title("Some.Show.S01E01.720p.HDTV.x264-GRP")
    assert not looks_like_scene_title("some show") and not looks_like_scene_title("Show-GRP")


def test_shown_takes_in_only_what_is_new(tmp_path: Path) -> None:
    """The readers' PreDB facts, kept between requests, take in a new link batch and a
    nuke told later, and match a fresh load; a rebuilt lookup is mapped anew."""
    from pipelines.predb import lookup as L
    from pipelines.predb.shown import Shown

    cat = _catalog(tmp_path)
    held = Shown.load(cat)
    assert set(held.by_release) == {key_of("g"), key_of("n"), key_of("p")}
    assert not held.by_release[key_of("g")].nuked
    later = "Later.Film.2021.1080p.WEB.h264-LTR"
    import_files(cat, [pres_file(tmp_path / "q.jsonl", [
        {"title": GOOD, "time": T0 - 90_000, "nuked": 2, "reason": "dupe"},
        {"title": later, "time": T0 - 60, "size": "100MB"},
    ])])  # fmt: skip
    write_range(cat, 1000, 1999, [release("l", later, 100 * MIB, 1000)], [],
                files("l", [later + ".mkv"], 100 * MIB))  # fmt: skip
    Scanner(cat, DEFAULT, lambda: T0 + 60).cycle()
    held.take()
    fresh = Shown.load(cat)
    assert held.by_release == fresh.by_release
    assert held.by_release[key_of("g")].nuked and held.by_release[key_of("g")].nuke_reason == "dupe"
    assert held.by_release[key_of("l")].title == later
    L.rebuild(L.load(cat))
    held.take()
    assert held.generation == L.generations(cat)[-1] and held.by_release == fresh.by_release
