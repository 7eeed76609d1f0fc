"""The web pages in a real browser: Debian's headless Chromium.

Chromium renders each page (`--dump-dom`), and submits the search form through the
DevTools protocol the way a person would (type, press Enter) with JavaScript switched
off, so what is tested is what a browser does with our HTML.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator

import pytest
import uvicorn
from lxml import html

from serving.app import create_app
from tests.catalogs import app_settings, module_catalog
from tests.servers import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    chromium_dom,
    free_port,
    start,
    stop_group,
    wait_until,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh --dev as root)"
    ),
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> Iterator[str]:
    root = module_catalog(tmp_path_factory, 2_000, groups=2, per_range=1_000, seed=31)
    settings = app_settings(root, page_size=25)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings, background=False), port=port,
                                           log_level="warning"))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, "the web server", seconds=60, every=0.1)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


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
    import websockets

    async with websockets.connect(ws_url, max_size=2**24) as ws:
        counter = 0

        async def call(method: str, **params) -> dict:
            nonlocal counter
            counter += 1
            await ws.send(json.dumps({"id": counter, "method": method, "params": params}))
            while True:
                msg = json.loads(await ws.recv())
                if msg.get("id") == counter:
                    return msg.get("result", {})

        await call("Page.enable")
        await call("Emulation.setScriptExecutionDisabled", value=True)
        await call("Page.navigate", url=f"{base}/")
        # Poll instead of sleeping: a loaded machine may take seconds to render.
        node = {"nodeId": 0}
        deadline = time.time() + 60
        while not node.get("nodeId"):
            assert time.time() < deadline, "the search page did not load"
            await asyncio.sleep(0.2)
            root = await call("DOM.getDocument")
            if "root" not in root:  # mid-navigation the call can fail: ask again
                continue
            node = await call(
                "DOM.querySelector", nodeId=root["root"]["nodeId"], selector="input[name=q]"
            )
        # Focus the search box, type, press Enter: no page script runs.
        await call("DOM.focus", nodeId=node["nodeId"])
        await call("Input.insertText", text=words)
        for kind, typed in (("keyDown", "\r"), ("keyUp", "")):
            await call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter",
                       windowsVirtualKeyCode=13, text=typed)  # fmt: skip
        while True:
            assert time.time() < deadline, "the form was not submitted"
            history = await call("Page.getNavigationHistory")
            await asyncio.sleep(0.2)
            if "entries" not in history:  # mid-navigation the call can fail: ask again
                continue
            url = history["entries"][history["currentIndex"]]["url"]
            if "?" in url:
                return url


def test_search_form_submits_without_javascript(base_url):
    # chromium's helper processes can still be writing the profile as it is removed
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        port = free_port()
        browser = start(
            [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
             f"--remote-debugging-port={port}", "about:blank"],
            subprocess.DEVNULL,
        )  # fmt: skip
        try:
            targets: list[dict] = []

            def pages() -> bool:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
                    targets[:] = [t for t in json.load(r) if t["type"] == "page"]
                return bool(targets)

            wait_until(pages, "chromium's DevTools port", seconds=30)
            url = asyncio.run(_submit_search(targets[0]["webSocketDebuggerUrl"], base_url, "love"))
        finally:
            # the whole process group: renderer and helpers too, not only the browser
            stop_group(browser, seconds=20)
    assert url.startswith(f"{base_url}/?q=love")
    doc = _dump(url)
    names = [a.text_content().lower() for a in doc.xpath("//tr[@class='release']/td[1]/a")]
    assert names and all("love" in n for n in names)


def test_chromium_is_the_one_from_debian():
    assert CHROMIUM is not None and os.path.realpath(CHROMIUM).startswith("/usr/")
