"""Feed items rendered column by column equal the per-release reference (`item_attrs`,
`rfc822`, `xml_text`), whatever the names hold; and the raw ASGI layer's HTTP details."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from bench.synthetic_catalog import write_synthetic_catalog
from pipelines.nzb.writer import xml_text
from serving import categories as cat
from serving.app import create_app
from serving.index.searcher import LISTED_COLUMNS
from serving.newznab import render
from serving.newznab.dates import rfc822, rfc822_column
from serving.newznab.items import escaped, item_values
from serving.settings import Settings
from tests.catalogs import sign_in

NS = {"newznab": render.NEWZNAB_NS}


def test_dates_column_equals_the_scalar_reference():
    rng = np.random.default_rng(5)
    seconds = np.concatenate(
        [
            rng.integers(0, 253_402_300_799, 5_000),
            [0, 59, 86_399, 86_400, 951_782_400, 951_868_800, 4_107_542_400, 253_402_300_799],
        ]
    )
    assert rfc822_column(seconds).to_pylist() == [rfc822(int(s)) for s in seconds]
    # Outside four-digit years the column falls back to the reference, value by value.
    odd = np.array([-86_401, 5, 253_402_300_800])
    assert rfc822_column(odd).to_pylist() == [rfc822(int(s)) for s in odd]
    assert rfc822_column(np.array([], dtype=np.int64)).to_pylist() == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text()), max_size=20))
def test_column_escaping_equals_xml_text(values):
    # Arrow strings are UTF-8: lone surrogates cannot reach a column.
    values = [v if v is None else v.encode("utf-8", "ignore").decode() for v in values]
    got = escaped(pa.array(values, pa.string())).to_pylist()
    assert got == [xml_text(v or "") for v in values]


NAMES = [
    "Plain.Name.S01E02.1080p.WEB.x264-GRP",
    'Tom & Jerry <Complete> "Box"',
    "ctrl\x01char\x1fs and tab\tstay",
    "non-char \ufffe\uffff gone, ünïcödé kept",
    "{braces} %s %d % literal",
]


def _items(table: pa.Table) -> list[str]:
    """What the index prepares at build time, as a page reads it back."""
    return item_values(table).to_pylist()


def _table(names: list[str]) -> pa.Table:
    n = len(names)
    rng = np.random.default_rng(len(names))
    cats = [5040, 5000, 2000, 3010, 7020, 8010][:n] + [5030] * max(0, n - 6)
    return pa.table(
        {
            "release_key": pa.array(
                [bytes(rng.integers(0, 256, 20, dtype=np.uint8)) for _ in names], pa.binary(20)
            ),
            "name": names,
            "poster": pa.array(["a&b <x@y>", None, "p\x02q", "ok", "z"][:n] + ["p"] * (n - 5)),
            "group": ["alt.binaries.test"] * n,
            "posted_first": pa.array(rng.integers(1_000_000_000, 1_800_000_000, n), pa.int64()),
            "files": pa.array([10, 3, 0, 7, 100][:n] + [1] * (n - 5), pa.int32()),
            "file_total": pa.array([10, None, 0, 20, 99][:n] + [1] * (n - 5), pa.int32()),
            "bytes": pa.array(rng.integers(0, 1 << 40, n), pa.int64()),
            "complete": pa.array([True, False, None, False, False][:n] + [True] * (n - 5)),
            "category": pa.array(cats, pa.int32()),
            "finished": [True] * n,
            # the article pass's flag: unknown, no, passworded, inner archive
            "password": pa.array(([None, 0, 1, 2] * n)[:n], pa.int8()),
            # how the release was named: the header pass, or the article pass's step
            "source": pa.array((["subject", "stem", "par2", None] * n)[:n], pa.string()),
        }
    ).select(LISTED_COLUMNS)


def clean(value: str) -> str:
    """A value as a client reads it back: `xml_text` escaped it and dropped what XML
    cannot carry; the parser undoes the escapes."""
    return etree.fromstring(f"<x>{xml_text(value)}</x>").text or ""


def _reference_item(row: dict, links: render.Links, grabs: Counter, wanted: set[str] | None):
    """What one item must show, from the per-row functions the JSON output also uses."""
    guid = row["release_key"].hex()
    attrs = render._pick(render.item_attrs(row, grabs[row["release_key"]]), wanted)
    return {
        "title": clean(row["name"]),
        "guid": links.details(guid),
        "link": links.nzb(guid),
        "pubDate": rfc822(row["posted_first"]),
        "category": cat.name(int(row["category"])),
        "length": str(row["bytes"]),
        "attrs": [(k, clean(v)) for k, v in attrs],
    }


def _parsed_items(body: bytes) -> list[dict]:
    channel = etree.fromstring(body).find("channel")
    out = []
    for item in channel.findall("item"):
        assert item.findtext("description") == item.findtext("title")
        assert item.find("enclosure").get("url") == item.findtext("link")
        out.append(
            {
                "title": item.findtext("title"),
                "guid": item.findtext("guid"),
                "link": item.findtext("link"),
                "pubDate": item.findtext("pubDate"),
                "category": item.findtext("category"),
                "length": item.find("enclosure").get("length"),
                "attrs": [
                    (a.get("name"), a.get("value")) for a in item.findall("newznab:attr", NS)
                ],
            }
        )
    return out


@pytest.mark.parametrize("wanted", [None, {"poster", "grabs"}, {"nothing-known"}])
@pytest.mark.parametrize("apikey", [None, "k&1"])
def test_items_equal_the_per_row_reference(wanted, apikey):
    table = _table(NAMES)
    rows = table.to_pylist()
    grabs: Counter[bytes] = Counter({rows[1]["release_key"]: 3})
    links = render.Links("http://example.org/base&x", apikey)
    site = Settings(catalog="unused", site_title="T & T")
    body = render.feed_xml(site, links, _items(table), 0, len(rows), grabs, wanted)
    got = _parsed_items(body)
    assert got == [_reference_item(r, links, grabs, wanted) for r in rows]


def test_clean_pages_and_empty_pages():
    # A page with nothing to escape takes the fast path; an empty one renders no items.
    table = _table([NAMES[0]] * 7)
    links = render.Links("http://h", "k")
    site = Settings(catalog="unused")
    body = render.feed_xml(site, links, _items(table), 0, 7, Counter(), None)
    rows = table.to_pylist()
    assert _parsed_items(body) == [_reference_item(r, links, Counter(), None) for r in rows]
    empty = render.feed_xml(site, links, _items(table.slice(0, 0)), 0, 0, Counter(), None)
    assert etree.fromstring(empty).find("channel").findall("item") == []


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("catalog"))
    write_synthetic_catalog(root, 300, groups=1, per_range=300, seed=3)
    site = Settings(catalog=root, api_keys=["k1"], build_in_process=True)
    with TestClient(create_app(site, background=False)) as c:
        yield sign_in(c)


def test_head_post_and_paths_of_the_raw_layer(client):
    get = client.get("/api", params={"t": "search", "apikey": "k1", "limit": 2})
    head = client.head("/api", params={"t": "search", "apikey": "k1", "limit": 2})
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(get.content))
    assert head.headers["content-type"] == get.headers["content-type"]
    post = client.post("/api", params={"t": "search", "apikey": "k1"})
    assert post.status_code == 405 and "GET" in post.headers["allow"]
    assert client.get("/nzb/").status_code == 404
    assert client.get("/nzb/a/b").status_code == 404
    assert client.get("/api/").status_code == 404
    # Links follow the Host the client used.
    r = client.get("/api", params={"t": "search", "apikey": "k1", "limit": 1},
                   headers={"host": "indexer.example:8443"})  # fmt: skip
    link = etree.fromstring(r.content).find("channel/item/link").text
    assert link.startswith("http://indexer.example:8443/api?t=get&id=") and "apikey=k1" in link


def test_unicode_digits_are_bad_parameters_not_crashes(client):
    # "¹".isdigit() is True but int("¹") raises: found by the hostile-parameter test.
    for path, params in (("/api", {"t": "search", "cat": "¹"}), ("/rss", {"t": "5000,²"})):
        r = client.get(path, params={**params, "apikey": "k1"})
        assert etree.fromstring(r.content).get("code") == "201", r.text
    assert client.get("/", params={"cat": "¹", "maxage": "٣"}).status_code == 200
