"""The admin pages in Debian's headless Chromium, JavaScript off, at 1280 and 390 px.

A person signs in with the admin key, tries a draft rule, adds it, shadows it, and looks
at the poster watch and build outcomes pages; a page of another origin posting a form
to the admin pages changes nothing. Every page fits a phone's width (nothing wider than
the window: wide tables scroll inside their box). Screenshots go to $BROWSER_SHOTS when
set.
"""

from __future__ import annotations

import asyncio
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pipelines.rules import store
from serving.app import create_app
from serving.settings import Settings
from tests.browser.devtools import NEEDS_CHROMIUM, Tab, chromium_tab
from tests.catalogs import module_catalog
from tests.servers import free_port, serve_app

pytestmark = NEEDS_CHROMIUM
ADMIN = "admin-key-1"


@pytest.fixture(scope="module")
def catalog_root(tmp_path_factory) -> str:
    return module_catalog(tmp_path_factory, 1_000, groups=2, per_range=500, seed=41)


@pytest.fixture(scope="module")
def admin_url(catalog_root, tmp_path_factory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("admin") / "admin.jsonl"
    settings = Settings(catalog=catalog_root, api_keys=["k1"], admin_keys=[ADMIN],
                        build_in_process=True, admin_log=str(log))  # fmt: skip
    yield from serve_app(create_app(settings, background=False))


@pytest.fixture
def other_site(tmp_path, admin_url) -> Iterator[str]:
    """A page of another origin whose form posts a rule to the admin pages."""
    (tmp_path / "index.html").write_text(
        f'<form method="post" action="{admin_url}/admin/rules"><input name="pattern" '
        'value="evil"><input name="force" value="1"><button id="go">go</button></form>'
    )
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path))  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/index.html"
    httpd.shutdown()


async def _fits(tab: Tab, shots: Path, name: str) -> None:
    for width in (1280, 390):
        await tab.screenshot(shots / f"{name}-{width}.png", width)
        metrics = await tab.call("Page.getLayoutMetrics")
        # nothing wider than the window: no sideways scrolling of the page on a phone
        assert metrics["cssContentSize"]["width"] <= metrics["cssLayoutViewport"]["clientWidth"], (
            name, width)  # fmt: skip


async def _admin_session(ws_url: str, base: str, shots: Path, evil: str) -> None:
    async with Tab.connect(ws_url) as tab:
        await tab.open(f"{base}/admin")
        await tab.node("form#admin-signin input[name=adminkey]")
        assert urlsplit(await tab.url()).path == "/admin/signin"
        await _fits(tab, shots, "admin-signin")
        await tab.type_into("input[name=adminkey]", ADMIN)
        await tab.loaded(tab.press_enter)
        await tab.node("table#rules")
        assert urlsplit(await tab.url()).path == "/admin"
        await _fits(tab, shots, "admin-rules")
        # a draft tried first: the try page says what it would do, and nothing changed
        await tab.type_into("form#add-rule input[name=pattern]", "-FLAC-")
        await tab.loaded(lambda: tab.click("#try-rule-button"))
        await tab.node("#trial-summary")
        await _fits(tab, shots, "admin-try")
        # then added (the draft came back in the form), and shadowed from the list
        await tab.click("form#add-rule input[name=force]")
        await tab.loaded(lambda: tab.click("#add-rule-button"))
        await tab.node("tr#rule-r1")
        await tab.loaded(lambda: tab.click("tr#rule-r1 button.op-shadow"))
        await tab.node("tr#rule-r1.rule-shadow")
        await tab.open(f"{base}/admin/rules/r1")
        await tab.node("form#edit-rule")
        await _fits(tab, shots, "admin-rule")
        for page, name, shows in (("/admin/posters", "admin-posters", "#no-watch"),
                                  ("/admin/builds", "admin-builds", "tr.build-day")):  # fmt: skip
            await tab.open(base + page)
            await tab.node(shows)
            await _fits(tab, shots, name)
        # another site's form: the browser sends no admin cookie (SameSite=Strict), no token
        await tab.open(evil)
        await tab.loaded(lambda: tab.click("#go"))


def test_the_admin_pages_in_a_browser(admin_url, catalog_root, other_site, tmp_path):
    shots = Path(os.environ.get("BROWSER_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    with chromium_tab() as ws_url:
        asyncio.run(_admin_session(ws_url, admin_url, shots, other_site))
    rules = store.load_rules(catalog_root)
    assert [(r.id, r.pattern, r.state) for r in rules.operator] == [("r1", "-FLAC-", "shadow")]
    assert all(e["who"].startswith("admin:") for e in rules.log)
    for name in ("admin-signin", "admin-rules", "admin-try", "admin-rule", "admin-posters",
                 "admin-builds"):  # fmt: skip
        for width in (1280, 390):
            assert (shots / f"{name}-{width}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
