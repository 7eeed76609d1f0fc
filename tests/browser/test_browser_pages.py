"""The web pages in a real browser: Debian's headless Chromium.

Chromium renders each page (`--dump-dom`), and, driven through the DevTools protocol
with JavaScript switched off (`tests/browser/devtools.py`), submits the search form the
way a person would (type, press Enter), signs in with an API key and downloads an NZB
by clicking its link: what is tested is what a browser does with our HTML. The pages
rendered without signing in are served with `public_pages`; the sign-in test has a
server of closed pages. Set BROWSER_SHOTS to a folder to keep the sign-in page's
screenshots (1280 and 390 px wide).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from lxml import etree, html

from serving.app import create_app
from serving.settings import Settings
from tests.browser.devtools import NEEDS_CHROMIUM, Tab, chromium_tab
from tests.catalogs import app_settings, module_catalog
from tests.servers import CHROMIUM, chromium_dom, serve_app

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def catalog_root(tmp_path_factory) -> str:
    return module_catalog(tmp_path_factory, 2_000, groups=2, per_range=1_000, seed=31)


def _serve(settings: Settings) -> Iterator[str]:
    yield from serve_app(create_app(settings, background=False))


@pytest.fixture(scope="module")
def base_url(catalog_root) -> Iterator[str]:
    """Pages anyone may browse (a key only for downloads): rendered without signing in."""
    yield from _serve(app_settings(catalog_root, page_size=25, public_pages=True))


@pytest.fixture(scope="module")
def closed_url(catalog_root) -> Iterator[str]:
    """Pages closed to visitors without a key (API key k1)."""
    yield from _serve(app_settings(catalog_root, page_size=25))


def _dump(url: str) -> html.HtmlElement:
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        return html.fromstring(chromium_dom(url, profile, timeout=90))


def test_search_page_renders_results(base_url):
    doc = _dump(f"{base_url}/?cat=5000")
    rows = doc.xpath("//tr[@class='release']")
    assert len(rows) == 25
    assert all(r.xpath("td[7]")[0].text_content().startswith("TV") for r in rows)
    assert doc.xpath("//form[@id='search']//input[@name='q']")


def test_release_status_and_browse_pages_render(base_url):
    doc = _dump(f"{base_url}/?minsize=10")
    link = doc.xpath("//tr[@class='release']/td[1]/a/@href")[0]
    release = _dump(link if link.startswith("http") else base_url + link)
    assert release.get_element_by_id("release-name").text_content()
    assert release.xpath("//tr[@class='file']")
    status = _dump(f"{base_url}/status")
    assert int(status.get_element_by_id("releases").text_content()) > 1_000
    assert len(_dump(f"{base_url}/groups").xpath("//table[@class='groups']//a")) == 2


async def _submit_search(ws_url: str, base: str, words: str) -> str:
    async with Tab.connect(ws_url) as tab:
        await tab.open(f"{base}/")
        # Focus the search box, type, press Enter: no page script runs.
        await tab.type_into("input[name=q]", words)
        await tab.loaded(tab.press_enter)

        async def submitted() -> str:
            url = await tab.url()
            return url if "?" in url else ""

        return str(await tab.until(submitted, "the search form's submission"))


def test_search_form_submits_without_javascript(base_url):
    with chromium_tab() as ws_url:
        url = asyncio.run(_submit_search(ws_url, base_url, "love"))
    assert url.startswith(f"{base_url}/?q=love")
    doc = _dump(url)
    names = [a.text_content().lower() for a in doc.xpath("//tr[@class='release']/td[1]/a")]
    assert names and all("love" in n for n in names)


async def _sign_in_and_download(ws_url: str, base: str, downloads: Path, shots: Path) -> str:
    """Open a closed page, be sent to sign in, get a wrong key wrong, sign in, click an
    NZB link; returns the link's URL."""
    async with Tab.connect(ws_url) as tab:
        await tab.allow_downloads(downloads)
        await tab.open(f"{base}/status")
        await tab.node("form#signin input[name=apikey]")
        sent = urlsplit(await tab.url())
        assert sent.path == "/signin" and parse_qs(sent.query) == {"next": ["/status"]}
        for width in (1280, 390):
            await tab.screenshot(shots / f"signin-{width}.png", width)
            metrics = await tab.call("Page.getLayoutMetrics")
            # nothing wider than the window: no sideways scrolling on a phone
            assert metrics["cssContentSize"]["width"] <= metrics["cssLayoutViewport"]["clientWidth"]
        await tab.type_into("input[name=apikey]", "not-the-key")
        await tab.loaded(tab.press_enter)
        await tab.node("#signin-message")
        await tab.screenshot(shots / "signin-wrong-key-390.png", 390)
        await tab.type_into("input[name=apikey]", "k1")
        await tab.loaded(tab.press_enter)

        async def back() -> bool:
            return urlsplit(await tab.url()).path == "/status" and bool(
                await tab.query("#releases")
            )

        await tab.until(back, "the way back to the status page")
        await tab.open(f"{base}/?minsize=10")  # the cookie opens every page from now on
        link = await tab.attribute("tr.release a.nzb", "href")
        assert link is not None
        await tab.click("tr.release a.nzb")

        async def downloaded() -> bool:
            names = [p.name for p in downloads.iterdir()]
            return any(n.endswith(".nzb") for n in names) and not any(
                n.endswith(".crdownload") for n in names
            )

        await tab.until(downloaded, "the NZB's download")
        return link


def test_signing_in_opens_the_pages_and_an_nzb_link_downloads(closed_url, tmp_path):
    # a visitor without a key who opens a page sees the sign-in form, nothing else
    closed = _dump(f"{closed_url}/")
    assert closed.xpath("//form[@id='signin']") and not closed.xpath("//tr[@class='release']")
    shots = Path(os.environ.get("BROWSER_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with chromium_tab() as ws_url:
        link = asyncio.run(_sign_in_and_download(ws_url, closed_url, downloads, shots))
    assert parse_qs(urlsplit(link).query) == {"apikey": ["k1"]}
    (nzb,) = downloads.glob("*.nzb")
    root = etree.parse(str(nzb)).getroot()
    assert root.tag.endswith("nzb") and root.findall("{*}file")  # an NZB, not error 100
    for name in ("signin-1280.png", "signin-390.png", "signin-wrong-key-390.png"):
        assert (shots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_chromium_is_the_one_from_debian():
    assert CHROMIUM is not None and os.path.realpath(CHROMIUM).startswith("/usr/")
