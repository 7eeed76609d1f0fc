"""Who may use the admin pages and `status.json`: the holder of an admin key.

An admin key is a role of its own (`admin_keys`), never an API key (the settings refuse
one that is both): the pages' links carry an API key in their URL, an admin key is
never put in one. A browser signs in at `/admin/signin` and keeps the key in a cookie of
its own (`usenet_indexer_admin`: HttpOnly, SameSite=Strict, path `/admin`); a monitor
sends it as `Authorization: Bearer <key>`. Wrong admin keys count with every other
wrong key of the client's address (`serving.wrong_keys`). Who did what is named by the
key's fingerprint (never the key) and the client's address: `serving.admin_log`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import quote, unquote

from fastapi import Depends, Request
from fastapi.responses import Response

from serving.signin import MAX_KEY_CHARS, client_address
from serving.state import Catalog, CatalogDep

COOKIE = "usenet_indexer_admin"
PATH = "/admin"
SIGN_IN = "/admin/signin"
COOKIE_SECONDS = 7 * 86_400  # a week: admin rights kept shorter than a reader's key


@dataclass(frozen=True)
class Admin:
    key_id: str  # the key's fingerprint: names the admin in the log, never the key itself
    client: str

    @property
    def who(self) -> str:
        return f"admin:{self.key_id}@{self.client or '?'}"


class AdminSignInNeeded(Exception):
    """An admin page asked for without an admin key: a redirect to its sign-in page."""


class AdminKeyNeeded(Exception):
    """`status.json` (or any machine route) asked for without a right admin key."""


def key_id(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def is_admin_key(catalog: Catalog, key: str) -> bool:
    if not key or len(key) > MAX_KEY_CHARS:
        return False
    given = key.encode("utf-8", "surrogatepass")
    # every key compared in constant time: how long a refusal takes tells nothing
    found = False
    for k in catalog.settings.admin_keys:
        found |= hmac.compare_digest(k.encode("utf-8", "surrogatepass"), given)
    return found


def presented_key(request: Request) -> str | None:
    """The admin key the request carries: a bearer token, else the admin cookie's."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    raw = request.cookies.get(COOKIE)
    return unquote(raw) if raw else None


def admin_of(request: Request, catalog: Catalog) -> Admin | None:
    """The request's admin, or None. A wrong key (bearer or cookie) counts as one."""
    key = presented_key(request)
    if key is None:
        return None
    client = client_address(request)
    if catalog.limits.wrong_keys.wait(client):
        return None  # slowed: the key is not looked at
    if not is_admin_key(catalog, key):
        # a cookie is whatever the client sends: a wrong one is a guess like any other
        catalog.limits.wrong_keys.wrong(client, request.url.path, key)
        return None
    return Admin(key_id(key), client)


def admin_page(request: Request, catalog: CatalogDep) -> Admin:
    """The dependency of every admin page."""
    admin = admin_of(request, catalog)
    if admin is None:
        raise AdminSignInNeeded()
    return admin


def admin_machine(request: Request, catalog: CatalogDep) -> Admin:
    """The dependency of `status.json`: an admin key, else 401 (no redirect)."""
    admin = admin_of(request, catalog)
    if admin is None:
        raise AdminKeyNeeded()
    return admin


AdminDep = Annotated[Admin, Depends(admin_page)]
AdminMachineDep = Annotated[Admin, Depends(admin_machine)]


def keep_admin_key(response: Response, request: Request, key: str) -> None:
    response.set_cookie(COOKIE, quote(key, safe=""), max_age=COOKIE_SECONDS, path=PATH,
                        secure=_https(request), httponly=True, samesite="strict")  # fmt: skip


def forget_admin_key(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path=PATH, secure=_https(request), httponly=True,
                           samesite="strict")  # fmt: skip


def _https(request: Request) -> bool:
    site: str = request.app.state.settings.site_url or ""
    return request.url.scheme == "https" or site.startswith("https:")
