"""Hostile input: any parameters give a Newznab answer (never a 500, never malformed)."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree

from tests.catalogs import synthetic_client

# the examples add up to more requests than a day's, and send many wrong keys from one
# address (which would slow it: tests/test_keys_attack.py)
NO_DAILY_LIMIT = {"daily_requests": 0, "wrong_keys_burst": 1_000_000}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("catalog")
    with synthetic_client(folder, 1_500, NO_DAILY_LIMIT, groups=2, per_range=500, seed=41) as c:
        yield c


NASTY = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=2000),
    st.sampled_from(["'; DROP TABLE releases; --", "\x00", "%00", "\r\n\r\n", "<x>&amp;", "-1",
                     "1e9", "9" * 40, "0x10", " 5 ", "NaN", "∞", "５", "١٢", "𝟘", "a" * 10_000]),
    st.integers(-(10**15), 10**15).map(str),
)  # fmt: skip
PARAMETERS = "t q cat limit offset maxage minsize maxsize group poster season ep id guid imdbid "
PARAMETERS += "artist album author title attrs extended o apikey r"
NAMES = st.sampled_from(PARAMETERS.split())
FUNCTIONS = st.sampled_from(["search", "tvsearch", "movie", "music", "book", "details", "get",
                             "caps", "rss", "register", "", "SEARCH", "t\x00"])  # fmt: skip


def _well_formed(r) -> None:
    assert r.status_code == 200, r.text[:300]
    assert b"Traceback" not in r.content
    kind = r.headers["content-type"]
    if kind.startswith("application/json"):
        json.loads(r.text)
    elif kind.startswith("application/x-nzb"):
        assert etree.fromstring(r.content).tag.endswith("nzb")
    else:
        assert etree.fromstring(r.content).tag in ("rss", "caps", "error")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(function=FUNCTIONS, extra=st.lists(st.tuples(NAMES, NASTY), max_size=6), key=st.booleans())
def test_any_parameters_get_a_well_formed_answer(client, function, extra, key):
    params = [("t", function), *extra]
    if key:
        params.insert(0, ("apikey", "k1"))
    _well_formed(client.get("/api", params=params))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(q=NASTY, cat=NASTY, limit=NASTY, offset=NASTY)
def test_search_parameters_are_validated_not_trusted(client, q, cat, limit, offset):
    r = client.get("/api", params={"t": "search", "apikey": "k1", "q": q, "cat": cat,
                                   "limit": limit, "offset": offset})  # fmt: skip
    _well_formed(r)
    root = etree.fromstring(r.content)
    if root.tag == "error":
        assert root.get("code") in {"201"}
    else:
        items = root.findall("channel/item")
        assert len(items) <= 100


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=st.text(max_size=60), t=NASTY)
@example(path="..", t="").via("a client normalised /nzb/.. to /, the HTML home page")
@example(path=".", t="")
def test_rss_nzb_and_pages_survive_anything(client, path, t):
    _well_formed(client.get("/rss", params={"t": t, "apikey": "k1"}))
    # Any text as one URL path segment: "/" and every character a URL gives a meaning to
    # percent-encoded, and the dots too. A segment "." or ".." is syntax (RFC 3986 5.2.4:
    # the client removes it, /nzb/.. is /); written %2E it is data, which the client sends
    # as it is and the server decodes.
    segment = quote(path, safe="").replace(".", "%2E")
    assert client.build_request("GET", "/nzb/" + segment).url.raw_path == f"/nzb/{segment}".encode()
    r = client.get("/nzb/" + segment, params={"apikey": "k1"})
    assert r.status_code in (200, 404)
    if r.status_code == 200:
        _well_formed(r)
    for url in ("/", "/release/" + segment):
        page = client.get(url, params={"q": t, "cat": t, "page": t, "maxage": t})
        assert page.status_code in (200, 404)


def test_limit_of_a_trillion_and_deep_offsets(client):
    r = client.get(
        "/api", params={"t": "search", "apikey": "k1", "limit": 10**12, "offset": 10**12}
    )
    root = etree.fromstring(r.content)
    assert root.tag == "rss" and root.findall("channel/item") == []
