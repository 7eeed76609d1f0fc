"""The web pages: search with filters and paging, release, browse, status; no JavaScript."""

from __future__ import annotations

import re

import pytest
from lxml import html

from tests.catalogs import synthetic_client

PAGE_OF_20 = {"page_size": 20}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("catalog")
    with synthetic_client(folder, 3_000, PAGE_OF_20, groups=2, per_range=1_000, seed=21) as c:
        yield c


def _page(client, url, **params):
    # No params argument at all when none: httpx replaces a URL's query with params.
    r = client.get(url, params=params) if params else client.get(url)
    assert r.status_code == 200, r.text[:300]
    assert "<script" not in r.text  # everything works without JavaScript
    return html.fromstring(r.text)


def _total(doc) -> int:
    return int(doc.get_element_by_id("total").text_content().split()[0])


def test_search_page_lists_newest_first_and_pages(client):
    doc = _page(client, "/")
    rows = doc.xpath("//tr[@class='release']")
    assert len(rows) == 20
    assert _total(doc) >= 3_000 - 200
    headers = [th.text_content() for th in doc.xpath("//table[@class='results']//th")]
    assert headers == ["Name", "Size", "Age", "Files", "Complete", "Group", "Category", "NZB"]
    next_link = doc.xpath("//a[@rel='next']/@href")[0]
    page2 = _page(client, next_link)
    first = {a.text_content() for a in doc.xpath("//tr[@class='release']/td[1]/a")}
    second = {a.text_content() for a in page2.xpath("//tr[@class='release']/td[1]/a")}
    assert first and second and not first & second


def test_filters_combine(client):
    doc = _page(client, "/", cat="5000", maxsize="100")
    cats = {td.text_content() for td in doc.xpath("//tr[@class='release']/td[7]")}
    assert cats and all(c.startswith("TV") for c in cats)
    sizes = [td.text_content() for td in doc.xpath("//tr[@class='release']/td[2]")]
    assert all(not s.endswith("GB") for s in sizes)
    group = doc.xpath("//tr[@class='release']/td[6]")[0].text_content()
    by_group = _page(client, "/", group=group, cat="5000")
    assert {td.text_content() for td in by_group.xpath("//tr[@class='release']/td[6]")} == {group}
    assert _total(by_group) <= _total(_page(client, "/", cat="5000"))
    name = doc.xpath("//tr[@class='release']/td[1]/a")[0].text_content()
    word = max(re.split(r"[._\-]", name), key=len)
    hits = _page(client, "/", q=word.lower())
    assert name in {a.text_content() for a in hits.xpath("//tr[@class='release']/td[1]/a")}
    assert (
        _page(client, "/", q="zzqqxx-nothing", maxage="abc").xpath("//tr[@class='release']") == []
    )


def test_release_page_lists_files_and_links_the_nzb(client):
    doc = _page(client, "/", minsize="50")
    link = doc.xpath("//tr[@class='release']/td[1]/a/@href")[0]
    page = _page(client, link, apikey="k1")
    files = page.xpath("//tr[@class='file']")
    assert files
    assert all(int(tr.xpath("td[3]")[0].text_content()) >= 1 for tr in files)
    nzb = page.get_element_by_id("nzb-link").get("href")
    r = client.get(nzb)
    assert r.headers["content-type"] == "application/x-nzb"
    assert client.get("/release/" + "ab" * 20).status_code == 404
    assert client.get("/release/not-hex").status_code == 404


def test_browse_and_status_pages(client):
    groups = _page(client, "/groups")
    names = [a.text_content() for a in groups.xpath("//table[@class='groups']//a")]
    assert names == sorted(names) and len(names) == 2
    cats = _page(client, "/categories")
    assert cats.xpath("//table[@class='categories']//a[starts-with(@href, '/?cat=')]")
    status = _page(client, "/status")
    assert int(status.get_element_by_id("releases").text_content()) == _total(_page(client, "/"))
    runs = status.xpath("//tr[@class='run']")
    assert len(runs) == 3  # one per indexed range
    assert client.get("/static/style.css").status_code == 200


@pytest.mark.parametrize(
    "params",
    [
        {"q": "'; DROP TABLE releases; --"},
        {"q": "\x00\x1b[31m"},
        {"q": "日本語 テスト"},
        {"page": "-4"},
        {"page": "99999999999999999999"},
        {"cat": "5000,2000"},
        {"minsize": "-1"},
        {"q": "x" * 5000},
    ],
)
def test_hostile_input_never_breaks_a_page(client, params):
    r = client.get("/", params=params)
    assert r.status_code == 200
