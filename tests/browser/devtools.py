"""Driving one tab of Debian's headless Chromium over the DevTools protocol.

What a person does, with page scripts switched off: open a URL, type into a field, press
Enter, click a link, and what a test needs to look: the tab's URL, whether a selector
matches, a screenshot at a window width. Every wait polls with a deadline instead of
sleeping: a loaded machine may take seconds to render.
"""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.servers import CHROMIUM, CHROMIUM_FLAGS, free_port, start, stop_group, wait_until

# every browser test's marks: a real server and Chromium, skipped where it is not installed
NEEDS_CHROMIUM = [
    pytest.mark.integration,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh --dev as root)"
    ),
]


@contextmanager
def chromium_tab() -> Iterator[str]:
    """A headless Chromium of its own profile; yields its tab's DevTools WebSocket URL."""
    assert CHROMIUM is not None
    # chromium's helper processes can still be writing the profile as it is removed
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        port = free_port()
        browser = start(
            [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
             f"--remote-debugging-port={port}", "about:blank"],
            subprocess.DEVNULL,
        )  # fmt: skip
        try:
            targets: list[dict[str, Any]] = []

            def pages() -> bool:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
                    targets[:] = [t for t in json.load(r) if t["type"] == "page"]
                return bool(targets)

            wait_until(pages, "chromium's DevTools port", seconds=30)
            yield str(targets[0]["webSocketDebuggerUrl"])
        finally:
            # the whole process group: renderer and helpers too, not only the browser
            stop_group(browser, seconds=20)


class Tab:
    def __init__(self, ws: Any, seconds: float) -> None:
        self.ws = ws
        self.seconds = seconds
        self.loads = 0  # pages loaded whole (their load event) since the tab was opened
        self._counter = 0

    @classmethod
    @asynccontextmanager
    async def connect(cls, ws_url: str, seconds: float = 60) -> AsyncIterator[Tab]:
        """The tab, scripts off: what is tested is what the HTML does by itself."""
        import websockets

        async with websockets.connect(ws_url, max_size=2**26) as ws:
            tab = cls(ws, seconds)
            await tab.call("Page.enable")
            await tab.call("Emulation.setScriptExecutionDisabled", value=True)
            yield tab

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One command's result ({} when it failed, as it may mid-navigation)."""
        result: dict[str, Any] = (await self._send(method, params)).get("result", {})
        return result

    async def must(self, method: str, **params: Any) -> dict[str, Any]:
        """One command's result; its failure fails the test."""
        msg = await self._send(method, params)
        assert "error" not in msg, f"{method}: {msg['error']}"
        result: dict[str, Any] = msg.get("result", {})
        return result

    async def _send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._counter += 1
        await self.ws.send(json.dumps({"id": self._counter, "method": method, "params": params}))
        while True:
            msg: dict[str, Any] = json.loads(await self.ws.recv())
            if msg.get("id") == self._counter:
                return msg
            if msg.get("method") == "Page.loadEventFired":
                self.loads += 1

    async def until(self, found: Callable[[], Any], what: str) -> Any:
        """Ask the coroutine function `found` again until its answer is true."""
        deadline = time.monotonic() + self.seconds
        while True:
            answer = await found()
            if answer:
                return answer
            assert time.monotonic() < deadline, f"{what} did not happen in {self.seconds} s"
            await asyncio.sleep(0.2)

    async def open(self, url: str) -> None:
        """Go to `url` and wait for its load: a field is focusable only once laid out."""
        await self.loaded(lambda: self.must("Page.navigate", url=url))

    async def loaded(self, action: Callable[[], Any]) -> None:
        """Do `action` (which loads a page: a navigation, a form sent) and wait for the load."""
        before = self.loads
        await action()

        async def done() -> bool:
            await self.call("Page.getFrameTree")  # any answer: the events before it are read
            return self.loads > before

        await self.until(done, "the page's load")

    async def url(self) -> str:
        history = await self.call("Page.getNavigationHistory")
        if "entries" not in history:
            return ""
        return str(history["entries"][history["currentIndex"]]["url"])

    async def query(self, selector: str) -> int:
        """The node id of the first match (0: none yet)."""
        root = await self.call("DOM.getDocument")
        if "root" not in root:
            return 0
        found = await self.call(
            "DOM.querySelector", nodeId=root["root"]["nodeId"], selector=selector
        )
        return int(found.get("nodeId", 0))

    async def node(self, selector: str) -> int:
        async def found() -> int:
            return await self.query(selector)

        return int(await self.until(found, f"a match of {selector!r}"))

    async def attribute(self, selector: str, name: str) -> str | None:
        node = await self.node(selector)
        attrs = (await self.call("DOM.getAttributes", nodeId=node)).get("attributes", [])
        return dict(zip(attrs[::2], attrs[1::2], strict=True)).get(name)

    async def type_into(self, selector: str, text: str) -> None:
        """Focus the field and type, the way a person does (no script sets its value)."""
        await self.must("DOM.focus", nodeId=await self.node(selector))
        await self.must("Input.insertText", text=text)

    async def press_enter(self) -> None:
        for kind, typed in (("keyDown", "\r"), ("keyUp", "")):
            await self.must("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter",
                            windowsVirtualKeyCode=13, text=typed)  # fmt: skip

    async def click(self, selector: str) -> None:
        """A left click in the middle of the element, scrolled into view first."""
        node = await self.node(selector)
        await self.must("DOM.scrollIntoViewIfNeeded", nodeId=node)
        quad = (await self.must("DOM.getBoxModel", nodeId=node))["model"]["content"]
        x, y = sum(quad[0::2]) / 4, sum(quad[1::2]) / 4
        for kind in ("mousePressed", "mouseReleased"):
            await self.must("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                            clickCount=1)  # fmt: skip

    async def allow_downloads(self, folder: Path) -> None:
        await self.must("Browser.setDownloadBehavior", behavior="allow",
                        downloadPath=str(folder))  # fmt: skip

    async def screenshot(self, path: Path, width: int, height: int = 900) -> None:
        """The page at a window `width` (a phone's below 500 px), saved as PNG."""
        await self.must("Emulation.setDeviceMetricsOverride", width=width, height=height,
                        deviceScaleFactor=1, mobile=width < 500)  # fmt: skip
        shot = await self.must("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
        await self.must("Emulation.clearDeviceMetricsOverride")
