"""Newznab conformance: every function against the contract, parsed the way clients parse it."""

from __future__ import annotations

import json
import re
from email.utils import parsedate_to_datetime

import pytest
from fastapi.testclient import TestClient
from lxml import etree
from nzb import Nzb

from pipelines.nzb.writer import DTD_PATH
from serving.app import create_app
from serving.settings import Settings
from serving.state import Catalog
from tests import shared_data
from tests.catalogs import app_client, module_catalog

NS = {"newznab": "http://www.newznab.com/DTD/2010/feeds/attributes/"}
SAMPLES = shared_data.DATA / "newznab"
DTD = etree.DTD(str(DTD_PATH))


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory) -> str:
    return module_catalog(tmp_path_factory, 4_000, groups=3, per_range=1_000, seed=11)


@pytest.fixture(scope="module")
def client(catalog_dir):
    with app_client(catalog_dir) as c:
        yield c


def parse_feed(body: bytes) -> dict:
    """What Prowlarr/Sonarr need from a search feed; raises where they would reject it."""
    root = etree.fromstring(body)
    assert root.tag == "rss", body[:200]
    channel = root.find("channel")
    response = channel.find("newznab:response", NS)
    items = []
    for item in channel.findall("item"):
        enclosure = item.find("enclosure")
        attrs: dict[str, list[str]] = {}
        for a in item.findall("newznab:attr", NS):
            attrs.setdefault(a.get("name"), []).append(a.get("value"))
        entry = {
            "title": item.findtext("title"),
            "guid": item.findtext("guid"),
            "link": item.findtext("link"),
            "pubDate": parsedate_to_datetime(item.findtext("pubDate")),
            "enclosure": (
                enclosure.get("url"),
                int(enclosure.get("length")),
                enclosure.get("type"),
            ),
            "attrs": attrs,
        }
        assert entry["title"] and entry["guid"] and entry["link"]
        assert entry["enclosure"][2] == "application/x-nzb"
        items.append(entry)
    offset = int(response.get("offset")) if response is not None else 0
    total = int(response.get("total")) if response is not None else len(items)
    return {"offset": offset, "total": total, "items": items}


def parse_caps(body: bytes) -> dict:
    root = etree.fromstring(body)
    assert root.tag == "caps"
    limits = root.find("limits")
    cats = {
        int(c.get("id")): [int(s.get("id")) for s in c.findall("subcat")]
        for c in root.find("categories").findall("category")
    }
    searching = {s.tag: s.get("available") == "yes" for s in root.find("searching")}
    return {"max": int(limits.get("max")), "default": int(limits.get("default")),
            "categories": cats, "searching": searching}  # fmt: skip


def error_code(body: bytes) -> int | None:
    root = etree.fromstring(body)
    return int(root.get("code")) if root.tag == "error" else None


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/data/newznab is absent")
@pytest.mark.parametrize(
    "name", ["nzbFinderResponse.xml", "drunkenSlugResponse.xml", "newznab_3results.xml"]
)
def test_the_client_parser_accepts_real_indexers(name):
    feed = parse_feed((SAMPLES / name).read_bytes())
    assert feed["items"] and all("size" in i["attrs"] for i in feed["items"])


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/data/newznab is absent")
def test_the_caps_parser_accepts_real_indexers():
    caps = parse_caps((SAMPLES / "nzbFinderCapsResponse.xml").read_bytes())
    assert caps["max"] == 100 and 2000 in caps["categories"]


def test_caps(client):
    r = client.get("/api", params={"t": "caps"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/xml")
    caps = parse_caps(r.content)
    assert caps["max"] == 100 and caps["default"] == 100
    assert all(
        caps["searching"][k]
        for k in ("search", "tv-search", "movie-search", "audio-search", "book-search")
    )
    assert 5000 in caps["categories"] and 5040 in caps["categories"][5000]
    root = etree.fromstring(r.content)
    assert root.find("searching/tv-search").get("supportedParams").startswith("q,season,ep")
    assert root.find("retention").get("days").isdigit()
    assert [g.get("name") for g in root.find("groups")]
    as_json = client.get("/api", params={"t": "caps", "o": "json"}).json()
    assert as_json["limits"]["@attributes"] == {"max": "100", "default": "100"}


def test_search_without_q_returns_the_newest(client):
    """Prowlarr's connection test: t=search with no q must return items."""
    feed = parse_feed(client.get("/api", params={"t": "search", "apikey": "k1"}).content)
    assert feed["total"] == 4_000 - 0 or feed["total"] > 3_000
    assert len(feed["items"]) == 100
    dates = [i["pubDate"] for i in feed["items"]]
    assert dates == sorted(dates, reverse=True)
    for item in feed["items"]:
        attrs = item["attrs"]
        for name in ("category", "size", "files", "poster", "group", "usenetdate", "guid",
                     "grabs", "password", "complete"):  # fmt: skip
            assert name in attrs, name
        assert int(attrs["size"][0]) == item["enclosure"][1]
        parsedate_to_datetime(attrs["usenetdate"][0])


def test_paging_totals_are_consistent(client):
    base = {"t": "search", "apikey": "k1", "q": "1080p", "limit": 7}
    first = parse_feed(client.get("/api", params=base).content)
    assert first["total"] > 21
    seen = []
    for offset in range(0, 21, 7):
        page = parse_feed(client.get("/api", params={**base, "offset": offset}).content)
        assert page["offset"] == offset and page["total"] == first["total"]
        seen += [i["guid"] for i in page["items"]]
    assert len(seen) == len(set(seen)) == 21
    beyond = parse_feed(client.get("/api", params={**base, "offset": 10**8}).content)
    assert beyond["items"] == [] and beyond["total"] == first["total"]


def test_filters(client):
    feed = parse_feed(
        client.get(
            "/api", params={"t": "search", "apikey": "k1", "cat": "5040,2000", "limit": 100}
        ).content
    )
    cats = {i["attrs"]["category"][-1] for i in feed["items"]}
    assert cats and all(c == "5040" or c.startswith("20") for c in cats)
    small = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "maxsize": 2_000_000}).content
    )
    assert all(int(i["attrs"]["size"][0]) <= 2_000_000 for i in small["items"])
    big = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "minsize": 50_000_000}).content
    )
    assert all(int(i["attrs"]["size"][0]) >= 50_000_000 for i in big["items"])
    group = big["items"][0]["attrs"]["group"][0]
    by_group = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "group": group}).content
    )
    assert by_group["total"] and all(i["attrs"]["group"] == [group] for i in by_group["items"])
    poster = by_group["items"][0]["attrs"]["poster"][0]
    by_poster = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "poster": poster}).content
    )
    assert by_poster["total"] and all(i["attrs"]["poster"] == [poster] for i in by_poster["items"])
    old = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "maxage": 1}).content
    )
    assert old["total"] < by_group["total"] + 10**6  # synthetic dates end in the past
    words = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "q": "THE_love"}).content
    )
    assert all(
        {"the", "love"} <= set(re.split(r"[\W_]+", i["title"].lower())) for i in words["items"]
    )


def test_typed_searches(client):
    tv = parse_feed(
        client.get(
            "/api", params={"t": "tvsearch", "apikey": "k1", "season": "3", "ep": "4"}
        ).content
    )
    assert tv["items"] and all("S03E04" in i["title"] for i in tv["items"])
    season = parse_feed(
        client.get("/api", params={"t": "tvsearch", "apikey": "k1", "season": "S03"}).content
    )
    assert season["total"] >= tv["total"] and all(".S03E" in i["title"] for i in season["items"])
    movies = parse_feed(client.get("/api", params={"t": "movie", "apikey": "k1"}).content)
    assert movies["items"] and all(i["attrs"]["category"][0] == "2000" for i in movies["items"])
    imdb = parse_feed(
        client.get("/api", params={"t": "movie", "apikey": "k1", "imdbid": "0058935"}).content
    )
    assert imdb["total"] == 0
    music = parse_feed(client.get("/api", params={"t": "music", "apikey": "k1"}).content)
    assert all(i["attrs"]["category"][0] == "3000" for i in music["items"])
    artist = music["items"][0]["title"].split("-")[0].split(".")[0]
    by_artist = parse_feed(
        client.get("/api", params={"t": "music", "apikey": "k1", "artist": artist}).content
    )
    assert by_artist["total"] >= 1
    book = parse_feed(client.get("/api", params={"t": "book", "apikey": "k1"}).content)
    assert all(i["attrs"]["category"][0] == "7000" for i in book["items"])


def test_details_and_get(client, catalog_dir):
    feed = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "minsize": 20_000_000}).content
    )
    guid = feed["items"][0]["attrs"]["guid"][0]
    details = parse_feed(
        client.get("/api", params={"t": "details", "apikey": "k1", "id": guid}).content
    )
    assert [i["title"] for i in details["items"]] == [feed["items"][0]["title"]]
    r = client.get("/api", params={"t": "get", "apikey": "k1", "id": guid})
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-nzb"
    assert feed["items"][0]["title"] in r.headers["content-disposition"]
    doc = etree.ElementTree(etree.fromstring(r.content))
    assert DTD.validate(doc), DTD.error_log
    parsed = Nzb.from_str(r.text)
    assert parsed.meta.title == feed["items"][0]["title"]
    assert parsed.size == int(feed["items"][0]["attrs"]["size"][0])
    again = parse_feed(
        client.get("/api", params={"t": "details", "apikey": "k1", "id": guid}).content
    )
    assert int(again["items"][0]["attrs"]["grabs"][0]) >= 1
    via_path = client.get(f"/nzb/{guid}", params={"apikey": "k1"})
    assert via_path.content == r.content
    enclosure = client.get(feed["items"][0]["enclosure"][0].replace("http://testserver", ""))
    assert enclosure.content == r.content


def test_every_nzb_of_a_page_is_valid(client):
    feed = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "limit": 60}).content
    )
    for item in feed["items"]:
        r = client.get("/api", params={"t": "get", "apikey": "k1", "id": item["attrs"]["guid"][0]})
        assert DTD.validate(etree.ElementTree(etree.fromstring(r.content)))
        parsed = (
            Nzb.from_str(r.text)
            if not all(f.is_par2() for f in Nzb.from_str(r.text).files)
            else None
        )
        assert parsed is None or parsed.size == item["enclosure"][1]


def test_rss_feed_per_category(client):
    feed = parse_feed(client.get("/rss", params={"t": "5000", "apikey": "k1", "num": 20}).content)
    assert len(feed["items"]) == 20
    assert all(i["attrs"]["category"][0] == "5000" for i in feed["items"])
    everything = parse_feed(client.get("/rss", params={"t": "0", "apikey": "k1"}).content)
    assert everything["total"] > feed["total"]


def test_json_output(client):
    body = client.get(
        "/api", params={"t": "search", "apikey": "k1", "o": "json", "limit": 3}
    ).json()
    assert body["channel"]["response"]["@attributes"]["offset"] == "0"
    assert len(body["channel"]["item"]) == 3
    assert body["channel"]["item"][0]["enclosure"]["@attributes"]["type"] == "application/x-nzb"
    err = client.get("/api", params={"t": "nope", "o": "json"}).json()
    assert err["error"]["@attributes"]["code"] == "202"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, 200),
        ({"t": "search"}, 100),
        ({"t": "search", "apikey": "wrong"}, 100),
        ({"t": "frobnicate", "apikey": "k1"}, 202),
        ({"t": "register", "email": "a@b"}, 203),
        ({"t": "search", "apikey": "k1", "limit": "ten"}, 201),
        ({"t": "search", "apikey": "k1", "limit": "-1"}, 201),
        ({"t": "search", "apikey": "k1", "offset": "-5"}, 201),
        ({"t": "search", "apikey": "k1", "cat": "50x0"}, 201),
        ({"t": "search", "apikey": "k1", "maxage": "1.5"}, 201),
        ({"t": "search", "apikey": "k1", "q": "x" * 600}, 201),
        ({"t": "tvsearch", "apikey": "k1", "season": "three"}, 201),
        ({"t": "tvsearch", "apikey": "k1", "ep": "3"}, 201),
        ({"t": "get", "apikey": "k1"}, 200),
        ({"t": "get", "apikey": "k1", "id": "nothex"}, 201),
        ({"t": "get", "apikey": "k1", "id": "ab" * 20}, 300),
        ({"t": "details", "apikey": "k1", "id": "00" * 20}, 300),
    ],
)
def test_errors_have_newznab_codes(client, params, code):
    r = client.get("/api", params=params)
    assert r.status_code == 200
    assert error_code(r.content) == code


def test_huge_limit_is_clamped_and_repeated_parameters_take_the_first(client):
    feed = parse_feed(
        client.get("/api", params={"t": "search", "apikey": "k1", "limit": 10**12}).content
    )
    assert len(feed["items"]) == 100
    r = client.get("/api?t=search&apikey=k1&limit=2&limit=50&t=caps")
    assert len(parse_feed(r.content)["items"]) == 2


def test_daily_limits(catalog_dir):
    settings = Settings(catalog=catalog_dir, api_keys=["k1"], daily_requests=3, daily_downloads=1,
                        build_in_process=True)  # fmt: skip
    with TestClient(create_app(settings, background=False)) as c:
        feed = parse_feed(c.get("/api", params={"t": "search", "apikey": "k1", "limit": 2}).content)
        guid = feed["items"][0]["attrs"]["guid"][0]
        assert (
            c.get("/api", params={"t": "get", "apikey": "k1", "id": guid}).headers["content-type"]
            == "application/x-nzb"
        )
        assert (
            error_code(c.get("/api", params={"t": "get", "apikey": "k1", "id": guid}).content)
            == 501
        )
        assert error_code(c.get("/api", params={"t": "search", "apikey": "k1"}).content) == 500
        assert parse_caps(c.get("/api", params={"t": "caps"}).content)["max"] == 100


def test_open_api_needs_no_key(catalog_dir):
    settings = Settings(catalog=catalog_dir, open_api=True, build_in_process=True)
    with TestClient(create_app(settings, background=False)) as c:
        assert parse_feed(c.get("/api", params={"t": "search", "limit": 1}).content)["items"]


def test_unexpected_failures_become_error_900(client, monkeypatch):
    catalog: Catalog = client.app.state.catalog

    def boom(*_a, **_k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(type(catalog.snapshot), "search", boom)
    r = client.get("/api", params={"t": "search", "apikey": "k1"})
    assert r.status_code == 200 and error_code(r.content) == 900
    assert b"disk on fire" not in r.content and b"Traceback" not in r.content
    assert json.loads(client.get("/api", params={"t": "search", "apikey": "k1", "o": "json"}).text)[
        "error"
    ]
