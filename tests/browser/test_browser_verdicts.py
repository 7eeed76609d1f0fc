"""Verdicts, health and merges in a real browser (Debian's headless Chromium): the search
page hides a judged release until "show all" is ticked (without JavaScript: the form's
checkbox), then marks it with its verdict; the release page shows health, verdict,
merges and grabs; the status page the counts. Screenshots at 1280 and 390 px (kept in
BROWSER_SHOTS when set): nothing wider than a phone's window."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from tests.browser.devtools import NEEDS_CHROMIUM, Tab, chromium_tab
from tests.browser.test_browser_pages import _dump, _serve
from tests.catalogs import app_settings, module_catalog
from tests.verdict_tables import health, merge, verdict, write_rows

pytestmark = NEEDS_CHROMIUM
DETAIL = "Kwyjibo.Feature.2021.1080p.mkv holds a Windows program (MZ)"


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> tuple[str, dict[str, dict]]:
    """A catalog whose judge found a fake, whose sweep found one release broken and one
    dead, and whose merges joined two releases into one."""
    root = module_catalog(tmp_path_factory, 600, groups=1, per_range=300, seed=29)
    fs, base = open_fs(root)
    part = list_table(fs, base, "releases")[-1]
    group = Path(part.path).parent.name
    rows = [r for r in pq.read_table(part.path).to_pylist()
            if r["finished"] and not r["merged_into"]]  # fmt: skip
    fake, broken, dead, into, sidecar = rows[:5]
    write_rows(root, "release_verdicts", group, f"{part.first}-{part.last}", [
        verdict(fake["release_key"], group, "fake", at=1_764_000_000, detail=DETAIL),
        verdict(dead["release_key"], group, "dead", at=1_764_000_000),
    ])  # fmt: skip
    write_rows(root, "release_health", group, "sweep-1", [
        health(broken["release_key"], group, "broken", at=1_764_000_000, missing=3),
        health(dead["release_key"], group, "dead", at=1_764_000_000, missing=12),
        health(into["release_key"], group, "healthy", at=1_764_000_000),
    ])  # fmt: skip
    write_rows(root, "release_merges", group, f"{part.first}-{part.last}", [
        merge(sidecar["release_key"], into["release_key"], group, "sidecar", at=1_764_000_000),
    ])  # fmt: skip
    return root, {"fake": fake, "broken": broken, "dead": dead, "into": into, "sidecar": sidecar}


@pytest.fixture(scope="module")
def url(judged) -> Iterator[str]:
    yield from _serve(app_settings(judged[0], page_size=25, public_pages=True))


def _word(row: dict) -> str:
    """Words that find the release (its whole name: all words must match)."""
    return "+".join(re.split(r"[^0-9A-Za-z]+", row["name"].lower())).strip("+")


async def _show_all(ws_url: str, base: str, word: str, shots: Path) -> list[str]:
    """Search for `word`, tick "show all", submit (Enter); the page's screenshots; the
    verdict labels of the results."""
    async with Tab.connect(ws_url) as tab:
        await tab.open(f"{base}/?q={word}")
        await tab.node("form#search")
        await tab.click("input[name=judged]")
        await tab.loaded(lambda: tab.click("form#search button[type=submit]"))
        await tab.node("tr.release")
        for width in (1280, 390):
            await _shot(tab, shots / f"search-judged-{width}.png", width)
        return [await tab.url()]


async def _shot(tab: Tab, path: Path, width: int) -> None:
    """The page at a window `width` saved as PNG, after checking that nothing is wider
    than the window (no sideways scrolling on a phone)."""
    await tab.must("Emulation.setDeviceMetricsOverride", width=width, height=900,
                   deviceScaleFactor=1, mobile=width < 500)  # fmt: skip
    try:
        metrics = await tab.call("Page.getLayoutMetrics")
        wide, window = (
            metrics["cssContentSize"]["width"],
            metrics["cssLayoutViewport"]["clientWidth"],
        )
        assert wide <= window, (path.name, wide, window)
    finally:
        await tab.must("Emulation.clearDeviceMetricsOverride")
    await tab.screenshot(path, width)


async def _shoot(ws_url: str, pages: dict[str, str], shots: Path) -> None:
    async with Tab.connect(ws_url) as tab:
        for name, page in pages.items():
            await tab.open(page)
            await tab.node("main")
            for width in (1280, 390):
                await _shot(tab, shots / f"{name}-{width}.png", width)


def test_search_hides_the_judged_until_show_all(judged, url, tmp_path):
    rows = judged[1]
    fake = rows["fake"]
    hidden = _dump(f"{url}/?q={_word(fake)}")
    names = [a.text_content() for a in hidden.xpath("//tr[@class='release']/td[1]/a")]
    assert fake["name"] not in names
    shots = Path(os.environ.get("BROWSER_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    with chromium_tab() as ws_url:
        (submitted,) = asyncio.run(_show_all(ws_url, url, _word(fake), shots))
    assert "judged=1" in submitted
    doc = _dump(submitted)
    row = next(tr for tr in doc.xpath("//tr[@class='release']")
               if tr.xpath("td[1]/a")[0].text_content() == fake["name"])  # fmt: skip
    assert row.xpath(".//span[contains(@class, 'verdict')]")[0].text_content() == "fake"
    dead = _dump(f"{url}/?q={_word(rows['dead'])}&judged=1")
    names = [a.text_content() for a in dead.xpath("//tr[@class='release']/td[1]/a")]
    assert rows["dead"]["name"] not in names  # never, show all or not


def test_release_and_status_pages(judged, url, tmp_path):
    rows = judged[1]
    fake = _dump(f"{url}/release/{rows['fake']['release_key'].hex()}")
    assert fake.xpath("//dd[@id='verdict']/span")[0].text_content() == "fake"
    assert fake.xpath("//span[@id='verdict-detail']")[0].text_content() == DETAIL
    broken = _dump(f"{url}/release/{rows['broken']['release_key'].hex()}")
    assert broken.xpath("//span[@id='health-missing']")[0].text_content() == "3 of 12"
    into = _dump(f"{url}/release/{rows['into']['release_key'].hex()}")
    cells = [td.text_content() for td in into.xpath("//tr[@class='merge']/td")]
    assert cells[:2] == [rows["sidecar"]["name"], "sidecar"]
    assert into.xpath("//dd[@id='grabs']")[0].text_content() == "0"
    status = _dump(f"{url}/status")
    assert status.xpath("//td[@id='verdicts-fake']")[0].text_content() == "1"
    assert status.xpath("//td[@id='health-broken']")[0].text_content() == "1"
    assert status.xpath("//td[@id='merges-sidecar']")[0].text_content() == "1"
    shots = Path(os.environ.get("BROWSER_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    pages = {
        "release-fake": f"{url}/release/{rows['fake']['release_key'].hex()}",
        "release-merged": f"{url}/release/{rows['into']['release_key'].hex()}",
        "release-dead": f"{url}/release/{rows['dead']['release_key'].hex()}",
        "status": f"{url}/status",
    }
    with chromium_tab() as ws_url:
        asyncio.run(_shoot(ws_url, pages, shots))
    for name in pages:
        assert (shots / f"{name}-390.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
