"""Searching by id: NZBHydra2's checks, Sonarr's and Radarr's requests, against a catalog
holding a well-known series and film under their real ids (the sample tables)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from fastapi.testclient import TestClient
from lxml import etree

from pipelines.catalog.schema import RELEASE_FILES, RELEASES
from pipelines.catalog.writer import write_partition
from pipelines.ids.stage import ids_catalog
from tests.catalogs import app_client
from tests.test_ids_import import import_all
from tests.test_newznab_api import error_code, parse_feed

GROUP = "alt.binaries.multimedia"
THRONES = [f"Game.of.Thrones.S01E{e:02d}.720p.HDTV.x264-GRP" for e in range(1, 9)] + [
    "Game of Thrones - 1x09 - Baelor [HDTV-720p]",
    "Game.of.Thrones.2011.04.17.720p.HDTV.x264-GRP",  # as a daily show names it
    "Game.of.Thrones.S01.1080p.BluRay.x264-GRP",
]
AVENGERS = [
    "The.Avengers.2012.1080p.BluRay.x264-GRP",
    "The.Avengers.2012.720p.BluRay.x264-OTHER",
    "Marvels.The.Avengers.2012.2160p.WEB-DL.DDP5.1-GRP",
]
OTHERS = [
    ("The.Avengers.1998.DVDRip.XviD-OLD", 2030),  # the remake's namesake: its own film
    ("Shameless.S01E01.720p.HDTV.x264-GRP", 5040),  # two series of that name: none
    ("Game.of.Thrones.Recap.720p.HDTV.x264-GRP", 5040),  # no episode: no ids
    ("Random.Show.S02E03.720p.HDTV.x264-GRP", 5040),
]


def release_rows(names: list[tuple[str, int]]) -> pa.Table:
    now = int(time.time())
    rows = [
        {"release_key": hashlib.sha1(n.encode()).digest(), "name": n,
         "poster": "poster@example.com", "group": GROUP, "groups": [GROUP],
         "posted_first": now - 600 * i, "posted_last": now - 600 * i, "first_article": i + 1,
         "last_article": i + 1, "files": 1, "file_total": 1, "segments": 1, "bytes": 1 << 30,
         "complete": True, "readable": True, "has_par2": False, "source": "subject",
         "category": category, "finished": True, "written_range": 1}
        for i, (n, category) in enumerate(names)
    ]  # fmt: skip
    return pa.Table.from_pylist(rows, RELEASES)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = str(tmp_path_factory.mktemp("ids-search"))
    names = [(n, 5040) for n in THRONES] + [(n, 2040) for n in AVENGERS] + OTHERS
    write_partition(root, "releases", GROUP, 1, 100, release_rows(names))
    write_partition(root, "release_files", GROUP, 1, 100, RELEASE_FILES.empty_table())
    import_all(root)
    summary = ids_catalog(root)
    assert summary.matched == len(THRONES) + len(AVENGERS) + 1
    return root


@pytest.fixture(scope="module")
def client(catalog: str) -> Iterator[TestClient]:
    with app_client(catalog) as c:
        yield c


def search(client: TestClient, **params: str) -> dict:
    r = client.get("/api", params={"apikey": "k1", **params})
    assert r.status_code == 200
    return parse_feed(r.content)


def share_of(items: list[dict], names: list[str]) -> float:
    return sum(i["title"] in names for i in items) / len(items) if items else 0.0


@pytest.mark.parametrize(
    "params",
    [{"tvdbid": "121361"}, {"tvmazeid": "82"}, {"rid": "24493"}, {"imdbid": "0944947"},
     {"imdbid": "tt0944947"}, {"tmdbid": "1399"}],
)  # fmt: skip
def test_nzbhydra_tv_id_checks(client: TestClient, params: dict[str, str]) -> None:
    feed = search(client, t="tvsearch", **params)
    assert share_of(feed["items"], THRONES) >= 0.6 and len(feed["items"]) == len(THRONES)


@pytest.mark.parametrize(
    "params",
    [{"imdbid": "0848228"}, {"imdbid": "tt0848228"}, {"imdbid": "848228"}, {"tmdbid": "24428"}],
)
def test_nzbhydra_movie_id_checks(client: TestClient, params: dict[str, str]) -> None:
    feed = search(client, t="movie", **params)
    assert share_of(feed["items"], AVENGERS) >= 0.6 and len(feed["items"]) == len(AVENGERS)


def test_items_carry_the_ids(client: TestClient) -> None:
    feed = search(client, t="tvsearch", tvdbid="121361", season="1", ep="2")
    (item,) = feed["items"]
    assert item["title"] == THRONES[1]
    attrs = {k: v[0] for k, v in item["attrs"].items()}
    assert {k: attrs[k] for k in ("imdb", "imdbid", "tvdbid", "tvmazeid", "rageid", "tmdbid")} == {
        "imdb": "0944947", "imdbid": "tt0944947", "tvdbid": "121361", "tvmazeid": "82",
        "rageid": "24493", "tmdbid": "1399",
    }  # fmt: skip
    assert (attrs["season"], attrs["episode"], attrs["showtitle"]) == ("1", "2", "Game of Thrones")
    film = search(client, t="movie", tmdbid="24428")["items"][0]
    fattrs = {k: v[0] for k, v in film["attrs"].items()}
    assert (fattrs["imdb"], fattrs["imdbtitle"], fattrs["imdbyear"]) == (
        "0848228",
        "The Avengers",
        "2012",
    )


def test_several_ids_are_one_show_and_text_narrows(client: TestClient) -> None:
    sonarr = search(
        client, t="tvsearch", tvdbid="121361", imdbid="tt0944947", tvmazeid="82", rid="24493"
    )
    assert len(sonarr["items"]) == len(THRONES)
    # an id this index does not hold, beside one it does: still the one show
    partly = search(client, t="tvsearch", tvdbid="121361", tvmazeid="999999")
    assert len(partly["items"]) == len(THRONES)
    narrowed = search(client, t="tvsearch", tvdbid="121361", q="BluRay")
    assert [i["title"] for i in narrowed["items"]] == [THRONES[-1]]


def test_unknown_ids_find_nothing_never_a_title_guess(client: TestClient) -> None:
    for params in ({"t": "tvsearch", "tvdbid": "999999"}, {"t": "tvsearch", "imdbid": "tt0000099"},
                   {"t": "movie", "imdbid": "0000099"}, {"t": "movie", "tmdbid": "1"}):  # fmt: skip
        assert search(client, **params)["total"] == 0, params
    # ambiguous names got no ids: the 1998 film is found by its own id only
    old = search(client, t="movie", imdbid="0118661", cat="2000")
    assert [i["title"] for i in old["items"]] == ["The.Avengers.1998.DVDRip.XviD-OLD"]


def test_a_malformed_id_is_error_201(client: TestClient) -> None:
    for params in ({"t": "movie", "imdbid": "ttabc"}, {"t": "tvsearch", "tvdbid": "abc"},
                   {"t": "tvsearch", "rid": "-4"}):  # fmt: skip
        r = client.get("/api", params={"apikey": "k1", **params})
        assert error_code(r.content) == 201, params


def test_caps_lists_exactly_the_ids_the_index_resolves(client: TestClient, tmp_path: Path) -> None:
    root = etree.fromstring(client.get("/api", params={"t": "caps"}).content)
    tv = root.find("searching/tv-search").get("supportedParams").split(",")
    movie = root.find("searching/movie-search").get("supportedParams").split(",")
    assert {"tvdbid", "tvmazeid", "rid", "imdbid", "tmdbid"} <= set(tv)
    assert {"imdbid", "tmdbid"} <= set(movie)
    bare = str(tmp_path / "bare")
    write_partition(bare, "releases", GROUP, 1, 100, release_rows([(THRONES[0], 5040)]))
    write_partition(bare, "release_files", GROUP, 1, 100, RELEASE_FILES.empty_table())
    with app_client(bare) as other:
        root = etree.fromstring(other.get("/api", params={"t": "caps"}).content)
    tv = root.find("searching/tv-search").get("supportedParams").split(",")
    assert not {"tvdbid", "tvmazeid", "rid", "imdbid", "tmdbid"} & set(tv)


def test_the_release_page_links_the_ids(client: TestClient) -> None:
    guid = hashlib.sha1(THRONES[1].encode()).hexdigest()
    page = etree.HTML(client.get(f"/release/{guid}").text)
    links = {a.get("id"): a.get("href") for a in page.iterfind(".//dd[@id='ids']/a")}
    assert links["id-imdb"] == "https://www.imdb.com/title/tt0944947/"
    assert links["id-tvdb"] == "https://thetvdb.com/dereferrer/series/121361"
    assert links["id-tvmaze"] == "https://www.tvmaze.com/shows/82"
    assert links["id-tmdb"] == "https://www.themoviedb.org/tv/1399"
    assert "season 1 episode 2" in page.find(".//dd[@id='ids']").xpath("string()")
    plain = hashlib.sha1(OTHERS[3][0].encode()).hexdigest()
    assert etree.HTML(client.get(f"/release/{plain}").text).find(".//dd[@id='ids']") is None


def test_the_search_page_takes_an_id(client: TestClient) -> None:
    def names(**params: str) -> list[str]:
        page = etree.HTML(client.get("/", params=params).text)
        return [
            a.text for a in page.iterfind(".//a") if (a.get("href") or "").startswith("/release/")
        ]

    assert sorted(names(id="tt0944947")) == sorted(THRONES)
    assert sorted(names(id="tvdb:121361", q="bluray")) == [THRONES[-1]]
    assert sorted(names(id="tmdb:24428")) == sorted(AVENGERS)
    assert names(id="tvdb:5") == [] and names(id="not an id") == []


def test_the_json_feed_carries_the_ids_too(client: TestClient) -> None:
    r = client.get("/api", params={"apikey": "k1", "t": "movie", "tmdbid": "24428", "o": "json"})
    items = r.json()["channel"]["item"]
    assert len(items) == len(AVENGERS)
    attrs = {a["@attributes"]["name"]: a["@attributes"]["value"] for a in items[0]["attr"]}
    assert (attrs["imdb"], attrs["tmdbid"], attrs["imdbyear"]) == ("0848228", "24428", "2012")


def test_a_daily_episode_by_id_and_day(client: TestClient) -> None:
    feed = search(client, t="tvsearch", tvmazeid="82", season="2011", ep="04/17")
    assert [i["title"] for i in feed["items"]] == ["Game.of.Thrones.2011.04.17.720p.HDTV.x264-GRP"]
    assert search(client, t="tvsearch", tvmazeid="82", season="2011", ep="04/18")["total"] == 0
