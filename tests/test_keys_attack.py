"""Keys under attack: wrong keys slowed per client address, forms only from our pages,
anonymous use of an open API counted per address.

The flood runs against a real uvicorn server (the one `serve` runs) and gives each
client its address the way a local reverse proxy does (`X-Forwarded-For`, trusted
from 127.0.0.1): what is tested is the address the server really counts by.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from lxml import etree

from serving.app import create_app
from serving.settings import Settings
from serving.signin import COOKIE
from tests.catalogs import app_settings, form_token, module_catalog
from tests.servers import free_port, serve_app, start, stop_group, wait_until

ATTACKER, USER = "203.0.113.9", "198.51.100.7"


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory) -> str:
    return module_catalog(tmp_path_factory, 200, groups=1, per_range=200, seed=8)


@pytest.fixture(scope="module")
def server(catalog_dir) -> Iterator[str]:
    yield from serve_app(create_app(app_settings(catalog_dir, wrong_keys_burst=10),
                                    background=False))  # fmt: skip


def _error(r: httpx.Response) -> tuple[int, str] | None:
    """Newznab's error (code, description), or None for a feed."""
    assert r.status_code == 200
    doc = etree.fromstring(r.content)
    if doc.tag == "error":
        return int(doc.get("code")), doc.get("description")
    assert doc.tag == "rss"
    return None


def test_a_thousand_wrong_keys_are_slowed_and_logged_while_others_are_served(server, caplog):
    caplog.set_level(logging.WARNING, "usenet_indexer.keys")
    attacker = httpx.Client(base_url=server, headers={"X-Forwarded-For": ATTACKER})
    user = httpx.Client(base_url=server, headers={"X-Forwarded-For": USER})
    answers: list[tuple[int, str] | None] = []
    with attacker, user:
        for i in range(1_000):
            answers.append(_error(attacker.get("/api", params={"t": "search", "apikey": f"g{i}"})))
            if i % 50 == 0:  # the right key from another address: served as before
                assert _error(user.get("/api", params={"t": "search", "apikey": "k1"})) is None
        # slowed: even the right key is not looked at from the attacker's address
        held = _error(attacker.get("/api", params={"t": "search", "apikey": "k1"}))
        slowed_signin = attacker.post("/signin", data={"apikey": "k1"})
    codes = [a[0] for a in answers if a is not None]
    assert len(codes) == 1_000
    # the burst answered "wrong key" (a token refilled while the flood ran, at most),
    # then every request "slow down", with Newznab's standard request-limit error
    wrong = codes.count(100)
    assert 10 <= wrong <= 11 and codes[:10] == [100] * 10
    assert codes.count(500) == 1_000 - wrong
    assert held is not None and held[0] == 500 and "too many wrong keys" in held[1]
    assert slowed_signin.status_code in (403, 429)  # no form token, or slowed: no key kept
    assert COOKIE not in slowed_signin.headers.get("set-cookie", "")
    lines = [r.getMessage() for r in caplog.records if r.name == "usenet_indexer.keys"]
    # logged with the address: every wrong key of the burst, then a line a minute
    assert all(ATTACKER in line for line in lines) and wrong <= len(lines) <= wrong + 3
    assert any("slowed" in line for line in lines)


def test_the_sign_in_form_is_slowed_per_address_too(catalog_dir):
    settings = app_settings(catalog_dir, wrong_keys_burst=3)
    with TestClient(create_app(settings, background=False), client=(ATTACKER, 1)) as attacker:
        statuses = []
        for i in range(6):
            token = form_token(attacker)
            r = attacker.post("/signin", data={"apikey": f"g{i}", "csrf": token},
                              follow_redirects=False)  # fmt: skip
            statuses.append(r.status_code)
        assert statuses == [403] * 3 + [429] * 3
        token = form_token(attacker)
        r = attacker.post("/signin", data={"apikey": "k1", "csrf": token}, follow_redirects=False)
        assert r.status_code == 429 and "Too many wrong keys" in r.text  # no key looked at
        limits = attacker.app.state.catalog.limits  # type: ignore[attr-defined]
        assert limits.wrong_keys.slowed_now() == [ATTACKER]


@pytest.mark.parametrize(
    "headers",
    [{}, {"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}],
)
def test_a_cross_site_form_post_is_refused(catalog_dir, headers):
    settings = app_settings(catalog_dir)
    with TestClient(create_app(settings, background=False)) as client:
        token = form_token(client)  # our page's token, in the cookie the client keeps
        # another site's page can send neither the token nor our Origin
        sent = {"apikey": "k1", **({"csrf": token} if headers else {})}
        r = client.post("/signin", data=sent, headers=headers, follow_redirects=False)
        assert r.status_code == 403 and COOKIE not in r.headers.get("set-cookie", "")
        assert client.get("/status", follow_redirects=False).status_code == 303  # not signed in
        ours = {"Origin": "http://testserver"}
        r = client.post("/signin", data={"apikey": "k1", "csrf": token}, headers=ours,
                        follow_redirects=False)  # fmt: skip
        assert r.status_code == 303 and r.headers["set-cookie"].startswith(f"{COOKIE}=k1")
        # behind a proxy that rewrites Host: the public host it forwards is ours too
        client.cookies.delete(COOKIE)
        proxied = {"Origin": "https://indexer.example", "X-Forwarded-Host": "indexer.example"}
        r = client.post("/signin", data={"apikey": "k1", "csrf": token}, headers=proxied,
                        follow_redirects=False)  # fmt: skip
        assert r.status_code == 303
        # signing out is a form of ours too: another site cannot sign a visitor out
        assert client.post("/signout", data={}, follow_redirects=False).status_code == 403
        assert client.get("/status", follow_redirects=False).status_code == 200


def _search(client: TestClient) -> tuple[int, str] | None:
    r = client.get("/api", params={"t": "search"})
    doc = etree.fromstring(r.content)
    return (int(doc.get("code")), doc.get("description")) if doc.tag == "error" else None


def _open(catalog_dir: str, **fields: Any) -> Settings:
    return Settings(catalog=catalog_dir, open_api=True, build_in_process=True, **fields)


def test_an_open_api_never_locks_everyone_out(catalog_dir):
    # daily_requests is a key's limit: once it was the one bucket all keyless clients shared
    settings = _open(catalog_dir, daily_requests=5)
    app = create_app(settings, background=False)
    with TestClient(app, client=("10.0.0.1", 1)) as busy:
        assert all(_search(busy) is None for _ in range(40))  # no anonymous limit: by default
        status = busy.get("/status").text
        assert "no limit" in status.lower()


def test_anonymous_limits_are_per_client_address(catalog_dir):
    settings = _open(catalog_dir, anonymous_requests=3)
    app = create_app(settings, background=False)
    with TestClient(app, client=("10.0.0.1", 1)) as busy:
        answers = [_search(busy) for _ in range(5)]
        assert answers[:3] == [None] * 3 and all(a and a[0] == 500 for a in answers[3:])
        # another address has its own day; a made-up key from the busy one is no way out
        with TestClient(app, client=("10.0.0.2", 1)) as other:
            assert _search(other) is None
        r = busy.get("/api", params={"t": "search", "apikey": "made-up"})
        assert etree.fromstring(r.content).get("code") == "500"
        assert "3 requests" in busy.get("/status").text


def test_the_flags_reach_the_settings_and_live_serves_open_without_a_lockout(
    catalog_dir, monkeypatch
):
    import serving.workers
    from cli.commands.live import serve_command
    from cli.main import build_parser, main

    seen: list[Settings] = []
    monkeypatch.setattr(serving.workers, "serve", lambda s, *_: seen.append(s) or 0)
    assert main(["serve", "--catalog", catalog_dir, "--open", "--admin-key", "adm",
                 "--anonymous-requests", "7", "--anonymous-downloads", "2",
                 "--workers", "1"]) == 0  # fmt: skip
    (s,) = seen
    assert (s.open_api, s.admin_keys, s.anonymous_requests, s.anonymous_downloads) == (
        True, ["adm"], 7, 2)  # fmt: skip
    # `live` without keys serves an open API: its anonymous use has no limit by default
    args = build_parser().parse_args(["live", "--catalog", catalog_dir, "--group", "g",
                                      "--corpus", "c", "--admin-key", "adm"])  # fmt: skip
    cmd = serve_command(args)
    assert "--open" in cmd and cmd[cmd.index("--admin-key") + 1] == "adm"
    assert main([*cmd[cmd.index("serve") :], "--workers", "1"]) == 0
    assert seen[-1].open_api and seen[-1].anonymous_requests == 0


def test_keys_guessed_through_pages_and_cookies_are_slowed_too(catalog_dir):
    # a closed page answers 200 to a right key and 303 to a wrong one: an oracle, slowed
    settings = app_settings(catalog_dir, wrong_keys_burst=3, admin_keys=["adm"])
    with TestClient(create_app(settings, background=False), client=(ATTACKER, 1)) as attacker:
        codes = [attacker.get("/status", params={"apikey": f"g{i}"}, follow_redirects=False
                              ).status_code for i in range(3)]  # fmt: skip
        assert codes == [303] * 3
        # slowed: the right key in a URL, a cookie or as the admin's is not looked at
        assert attacker.get("/status", params={"apikey": "k1"},
                            follow_redirects=False).status_code == 303  # fmt: skip
        attacker.cookies.set(COOKIE, "k1")
        assert attacker.get("/status", follow_redirects=False).status_code == 303
        attacker.cookies.clear()
        assert attacker.get("/admin/status.json", headers={"Authorization": "Bearer adm"}
                            ).status_code == 401  # fmt: skip
    with TestClient(create_app(settings, background=False), client=(USER, 1)) as user:
        user.cookies.set("usenet_indexer_admin", "guess", path="/admin")
        assert user.get("/admin", follow_redirects=False).status_code == 303
        limits = user.app.state.catalog.limits  # type: ignore[attr-defined]
        assert limits.wrong_keys.wrong_total == 1  # an admin cookie is a guess like any
        assert user.get("/admin/status.json", headers={"Authorization": "Bearer adm"}
                        ).status_code == 200  # fmt: skip


def test_a_revoked_kept_key_is_counted_once_then_dropped(catalog_dir):
    settings = app_settings(catalog_dir, public_pages=True, wrong_keys_burst=3)
    with TestClient(create_app(settings, background=False)) as client:
        client.cookies.set(COOKIE, "revoked", domain="testserver.local")  # as a response sets it
        r = client.get("/groups")
        assert r.status_code == 200 and f'{COOKIE}=""' in r.headers["set-cookie"]
        for _ in range(5):  # browsing on: the cookie is gone, nothing more is counted
            assert client.get("/groups").status_code == 200
        limits = client.app.state.catalog.limits  # type: ignore[attr-defined]
        assert limits.wrong_keys.wrong_total == 1 and limits.wrong_keys.slowed_now() == []


def test_serve_open_as_a_new_user_tries_it(catalog_dir, tmp_path):
    """`serve --open` (what `live` runs without keys), two workers, polled from two
    addresses far past what one day's shared count once allowed: never error 500."""
    port = free_port()
    env = {**os.environ, "USENET_INDEXER_DAILY_REQUESTS": "5"}  # a key's limit, not theirs
    with (tmp_path / "serve.log").open("wb") as log:
        server = start([sys.executable, "-m", "cli.main", "serve", "--catalog", catalog_dir,
                        "--open", "--port", str(port), "--workers", "2"], log, env=env)  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"

            def up() -> bool:
                try:
                    return httpx.get(f"{base}/api", params={"t": "caps"}).status_code == 200
                except httpx.TransportError:
                    return False

            wait_until(up, "serve --open", seconds=120)
            for address in (ATTACKER, USER):
                with httpx.Client(base_url=base, headers={"X-Forwarded-For": address}) as c:
                    assert all(_error(c.get("/rss", params={"t": "0"})) is None for _ in range(30))
            status = httpx.get(f"{base}/status").text
            assert "Without a key, per client address, a day" in status and "no limit" in status
        finally:
            stop_group(server)
