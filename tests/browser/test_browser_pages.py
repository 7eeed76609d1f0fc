"""The web pages in a real browser: Debian's headless Chromium.

Chromium renders each page (`--dump-dom`), and submits the search form through the
DevTools protocol the way a person would (type, press Enter) with JavaScript switched
off, so what is tested is what a browser does with our HTML.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator

import pytest
import uvicorn
from lxml import html

from bench.synthetic_catalog import write_synthetic_catalog
from serving.app import create_app
from serving.settings import Settings

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh --dev as root)"
    ),
]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> Iterator[str]:
    root = str(tmp_path_factory.mktemp("catalog"))
    write_synthetic_catalog(root, 2_000, groups=2, per_range=1_000, seed=31)
    settings = Settings(catalog=root, api_keys=["k1"], build_in_process=True, page_size=25)
    port = _port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings, background=False), port=port,
                                           log_level="warning"))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 60
    while not server.started:
        assert time.time() < deadline, "server did not start"
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def _dump(url: str) -> html.HtmlElement:
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        out = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True, timeout=90, check=True,
        )  # fmt: skip
    return html.fromstring(out.stdout.decode())


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
        port = _port()
        browser = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--remote-debugging-port={port}",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.time() + 30
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
                        targets = [t for t in json.load(r) if t["type"] == "page"]
                    if targets:
                        break
                except OSError:
                    pass
                assert time.time() < deadline, "chromium did not open its DevTools port"
                time.sleep(0.2)
            url = asyncio.run(_submit_search(targets[0]["webSocketDebuggerUrl"], base_url, "love"))
        finally:
            # the whole process group: renderer and helpers too, not only the browser
            os.killpg(browser.pid, signal.SIGTERM)
            browser.wait(timeout=20)
    assert url.startswith(f"{base_url}/?q=love")
    doc = _dump(url)
    names = [a.text_content().lower() for a in doc.xpath("//tr[@class='release']/td[1]/a")]
    assert names and all("love" in n for n in names)


def test_chromium_is_the_one_from_debian():
    assert CHROMIUM is not None and os.path.realpath(CHROMIUM).startswith("/usr/")
