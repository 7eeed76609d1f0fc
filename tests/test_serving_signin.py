"""The web pages under API keys: sign-in, the key's cookie, links that carry it, sign-out."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from lxml import etree, html

from cli.main import main
from serving.app import create_app
from serving.settings import Settings, load_settings
from serving.signin import COOKIE, safe_next
from tests.catalogs import form_token, module_catalog, sign_in

PAGES = ("/", "/?q=love&cat=5000", "/categories", "/groups", "/status")


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory) -> str:
    return module_catalog(tmp_path_factory, 300, groups=1, per_range=300, seed=5)


@contextmanager
def served(
    catalog_dir: str, base_url: str = "http://testserver", **fields: Any
) -> Iterator[TestClient]:
    """A client of the app with keys k1 and `a b;c"d` (unless `fields` say otherwise)."""
    # a high wrong-key burst: the module's tests send many from one address (tests/test_keys*)
    settings = Settings(catalog=catalog_dir, build_in_process=True,
                        **{"api_keys": ["k1", 'a b;c"d'], "wrong_keys_burst": 10_000,
                           **fields})  # fmt: skip
    with TestClient(create_app(settings, background=False), base_url=base_url) as client:
        yield client


@pytest.fixture(scope="module")
def closed(catalog_dir) -> Iterator[TestClient]:
    with served(catalog_dir) as client:
        yield client


@pytest.fixture(autouse=True)
def _signed_out(closed):
    closed.cookies.clear()


def _post(client: TestClient, path: str, data: dict[str, str]) -> Any:
    """A form posted from the sign-in page (with its token), as a browser does."""
    return client.post(path, data={**data, "csrf": form_token(client)}, follow_redirects=False)


def _doc(r) -> html.HtmlElement:
    assert r.status_code == 200, r.text[:300]
    return html.fromstring(r.text)


def _release(client: TestClient) -> str:
    link = _doc(client.get("/")).xpath("//tr[@class='release']/td[1]/a/@href")[0]
    return str(link)


def _hrefs(doc: html.HtmlElement, xpath: str) -> list[str]:
    return [str(h) for h in doc.xpath(xpath)]


def _key_of(url: str) -> str | None:
    return parse_qs(urlsplit(url).query).get("apikey", [None])[0]


def test_closed_pages_send_a_visitor_without_a_key_to_sign_in(closed):
    for page in (*PAGES, "/release/" + "ab" * 20):
        r = closed.get(page, follow_redirects=False)
        assert r.status_code == 303, page
        target = r.headers["location"]
        assert urlsplit(target).path == "/signin"
        assert safe_next(parse_qs(urlsplit(target).query).get("next", ["/"])[0]) == page
    # what a visitor needs to sign in, and the API's own answers, stay open
    assert closed.get("/signin").status_code == 200
    assert closed.get("/static/style.css").status_code == 200
    assert closed.get("/api", params={"t": "caps"}).status_code == 200
    followed = _doc(closed.get("/status"))
    assert followed.xpath("//form[@id='signin']//input[@name='apikey'][@type='password']")
    assert followed.xpath("//form[@id='signin']//input[@name='next']/@value") == ["/status"]


def test_signing_in_keeps_the_key_in_a_cookie_and_comes_back(closed):
    r = _post(closed, "/signin", {"apikey": " k1 ", "next": "/status"})
    assert r.status_code == 303 and r.headers["location"] == "/status"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=k1;")
    parts = {p.strip().lower() for p in cookie.split(";")}
    assert {"httponly", "samesite=lax", "path=/"} <= parts
    assert "secure" not in parts  # plain http here; https below
    for page in PAGES:
        doc = _doc(closed.get(page))
        assert doc.xpath("//button[@id='signout']")  # the header offers the way out
    page = closed.get("/")
    assert page.headers["cache-control"] == "private, no-store"  # its links hold a key


def test_the_links_of_a_signed_in_page_carry_its_key_and_work(closed):
    sign_in(closed)
    doc = _doc(closed.get("/"))
    nzbs = _hrefs(doc, "//tr[@class='release']/td[8]/a/@href")
    assert nzbs and all(urlsplit(h).path.startswith("/nzb/") and _key_of(h) == "k1" for h in nzbs)
    got = closed.get(nzbs[0])
    assert got.headers["content-type"] == "application/x-nzb"
    etree.fromstring(got.content)  # a whole NZB, not Newznab's error 100
    release = _doc(closed.get(_release(closed)))
    link = release.get_element_by_id("nzb-link").get("href")
    assert _key_of(link) == "k1"
    assert closed.get(link).headers["content-type"] == "application/x-nzb"
    rss = doc.get_element_by_id("rss-link").get("href")
    assert urlsplit(rss).path == "/rss" and parse_qs(urlsplit(rss).query) == {
        "t": ["0"], "apikey": ["k1"],
    }  # fmt: skip
    feed = etree.fromstring(closed.get(rss).content)
    assert feed.tag == "rss" and feed.findall("channel/item")
    # every item's NZB link carries the key too (the API's own rule)
    assert all(_key_of(e.get("url")) == "k1" for e in feed.findall("channel/item/enclosure"))


def test_the_feed_link_follows_the_search(closed):
    sign_in(closed)
    doc = _doc(closed.get("/", params={"cat": "5000"}))
    rss = doc.get_element_by_id("rss-link").get("href")
    assert parse_qs(urlsplit(rss).query) == {"t": ["5000"], "apikey": ["k1"]}
    doc = _doc(closed.get("/", params={"q": "love", "cat": "5000", "minsize": "1", "maxage": "9"}))
    feed = doc.get_element_by_id("rss-link").get("href")
    assert urlsplit(feed).path == "/api"
    assert parse_qs(urlsplit(feed).query) == {
        "t": ["search"], "q": ["love"], "cat": ["5000"], "maxage": ["9"],
        "minsize": [str(1 << 20)], "apikey": ["k1"],
    }  # fmt: skip
    assert etree.fromstring(closed.get(feed).content).tag == "rss"


@pytest.mark.parametrize(
    ("key", "status", "message"),
    [
        ("wrong", 403, "not accepted"),
        ("K1", 403, "not accepted"),  # keys are exact
        ("k1" * 200, 403, "not accepted"),
        ("", 400, "Enter your API key"),
        ("   ", 400, "Enter your API key"),
    ],
)
def test_a_wrong_key_gets_a_clear_message_and_no_cookie(closed, key, status, message):
    r = _post(closed, "/signin", {"apikey": key, "next": "/groups"})
    assert r.status_code == status and "set-cookie" not in r.headers
    doc = html.fromstring(r.text)
    assert message in doc.get_element_by_id("signin-message").text_content()
    # the form is there to try again, and still goes back where the visitor was going
    assert doc.xpath("//form[@id='signin']//input[@name='next']/@value") == ["/groups"]
    assert closed.get("/", follow_redirects=False).status_code == 303


def test_bodies_that_are_not_a_sign_in_form_are_refused_cleanly(closed):
    for body, kind in (
        (b"apikey=k1&" + b"x" * 10_000, "application/x-www-form-urlencoded"),
        (b'{"apikey": "k1"}', "application/json"),
        (b"\xff\xfe\x00apikey=\xff", "application/x-www-form-urlencoded"),
        (b"", ""),
    ):
        r = closed.post("/signin", content=body, headers={"content-type": kind},
                        follow_redirects=False)  # fmt: skip
        assert r.status_code in (400, 403) and COOKIE not in r.headers.get("set-cookie", "")
        assert html.fromstring(r.text).get_element_by_id("signin-message") is not None


@pytest.mark.parametrize(
    "target", ["//evil.example/", "https://evil.example/", "/\\evil.example", "evil", "/signin",
               "/signout", "/\r\nSet-Cookie: x=1", ""],
)  # fmt: skip
def test_signing_in_never_leads_off_the_site(closed, target):
    r = _post(closed, "/signin", {"apikey": "k1", "next": target})
    assert r.status_code == 303 and r.headers["location"] == "/"


def test_a_key_with_cookie_syntax_in_it_survives_the_cookie(closed):
    sign_in(closed, 'a b;c"d')
    doc = _doc(closed.get("/"))
    link = _hrefs(doc, "//tr[@class='release']/td[8]/a/@href")[0]
    assert _key_of(link) == 'a b;c"d'
    assert closed.get(link).headers["content-type"] == "application/x-nzb"


def test_signing_out_forgets_the_key(closed):
    sign_in(closed)
    assert closed.get("/", follow_redirects=False).status_code == 200
    r = _post(closed, "/signout", {})
    assert r.status_code == 303 and r.headers["location"] == "/signin"
    assert f'{COOKIE}=""' in r.headers["set-cookie"] and "Max-Age=0" in r.headers["set-cookie"]
    assert closed.get("/", follow_redirects=False).status_code == 303


def test_a_kept_key_no_longer_accepted_is_asked_for_again(closed):
    closed.cookies.set(COOKIE, "revoked")
    assert closed.get("/", follow_redirects=False).status_code == 303
    r = closed.get("/signin")
    assert "no longer accepted" in html.fromstring(r.text).get_element_by_id("signin-message").text
    assert "Max-Age=0" in r.headers["set-cookie"]


def test_a_valid_key_in_the_url_still_opens_a_page(closed):
    doc = _doc(closed.get("/", params={"apikey": "k1"}))
    assert all(_key_of(h) == "k1" for h in _hrefs(doc, "//tr[@class='release']/td[8]/a/@href"))
    assert doc.xpath("//a[@id='signin-link']")  # not signed in: nothing was kept
    assert closed.get("/", params={"apikey": "nope"}, follow_redirects=False).status_code == 303


def test_public_pages_are_open_and_their_downloads_ask_for_a_key(catalog_dir):
    with served(catalog_dir, public_pages=True) as client:
        for page in PAGES:
            assert client.get(page, follow_redirects=False).status_code == 200, page
        doc = _doc(client.get("/"))
        nzbs = _hrefs(doc, "//tr[@class='release']/td[8]/a/@href")
        assert nzbs and all(h == "/signin" for h in nzbs)  # not error 100 at the click
        assert doc.get_element_by_id("rss-link").get("href") == "/signin"
        release = _doc(client.get(_release(client)))
        link = release.get_element_by_id("nzb-link")
        assert link.get("href").startswith("/signin?next=%2Frelease%2F")
        assert "Sign in" in link.text_content()
        assert doc.xpath("//a[@id='signin-link']")
        sign_in(client)
        doc = _doc(client.get("/"))
        assert all(_key_of(h) == "k1" for h in _hrefs(doc, "//tr[@class='release']/td[8]/a/@href"))
        r = _post(client, "/signout", {})
        assert r.headers["location"] == "/"  # browsing goes on


def test_an_open_api_needs_no_sign_in(catalog_dir):
    with served(catalog_dir, api_keys=[], open_api=True) as client:
        doc = _doc(client.get("/"))
        assert not doc.xpath("//a[@id='signin-link']") and not doc.xpath("//button[@id='signout']")
        link = _hrefs(doc, "//tr[@class='release']/td[8]/a/@href")[0]
        assert _key_of(link) is None
        assert client.get(link).headers["content-type"] == "application/x-nzb"
        r = _post(client, "/signin", {"apikey": "", "next": "/groups"})
        assert r.status_code == 303 and r.headers["location"] == "/groups"


def test_the_cookie_is_secure_over_https(catalog_dir):
    with served(catalog_dir, base_url="https://testserver") as client:
        r = _post(client, "/signin", {"apikey": "k1"})
        assert "secure" in {p.strip().lower() for p in r.headers["set-cookie"].split(";")}


def test_public_pages_from_the_flag_the_config_and_the_environment(
    catalog_dir, tmp_path, monkeypatch
):
    import serving.workers

    seen: list[Settings] = []
    monkeypatch.setattr(serving.workers, "serve", lambda s, *_: seen.append(s) or 0)
    args = ["serve", "--catalog", catalog_dir, "--api-key", "k1", "--workers", "1"]
    assert main(args) == 0 and main([*args, "--public-pages"]) == 0
    assert [s.public_pages for s in seen] == [False, True]
    config = tmp_path / "serve.toml"
    config.write_text(f'catalog = "{catalog_dir}"\npublic_pages = true\n')
    assert load_settings(str(config)).public_pages
    monkeypatch.setenv("USENET_INDEXER_PUBLIC_PAGES", "false")
    assert not load_settings(str(config)).public_pages
