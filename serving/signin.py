"""Who may see the web pages, and the key their links carry: sign-in with an API key.

With API keys set and the API not open, the pages are closed to visitors without a key:
each page depends on `page_access`, which sends such a visitor to the sign-in page and
back afterwards. `public_pages` keeps browsing open; downloads and feeds still need a
key. A signed-in visitor's key is kept in a cookie (HttpOnly: no page script reads it;
SameSite=Lax: other sites' requests do not carry it), and the pages' NZB and RSS links
carry it in their URL (`apikey=`), as Newznab clients and downloaders expect: a link
copied into SABnzbd works as it is. Whether a key is accepted is the API's own rule
(`KeyLimits.allowed`); page views are not counted as API requests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import parse_qsl, quote, unquote, urlencode

from fastapi import Depends, Request
from fastapi.responses import RedirectResponse, Response

from serving.settings import Settings
from serving.state import Catalog, CatalogDep

COOKIE = "usenet_indexer_key"
COOKIE_SECONDS = 365 * 86_400
MAX_KEY_CHARS = 256  # longer is no key of ours: refused before it is looked up
MAX_FORM_BYTES = 4096
SIGN_IN = "/signin"


def pages_closed(settings: Settings) -> bool:
    """Whether a visitor without a key is sent to the sign-in page."""
    return not settings.open_api and not settings.public_pages


@dataclass(frozen=True)
class PageAccess:
    key: str | None  # the accepted key the page's links carry, if any
    signed_in: bool  # the key came from the sign-in cookie
    needs_key: bool  # downloads and feeds need a key (the API is not open)
    here: str  # this page's path and query: where signing in comes back to

    @property
    def can_download(self) -> bool:
        return self.key is not None or not self.needs_key

    @property
    def sign_in_url(self) -> str:
        return sign_in_url(self.here)

    def nzb_url(self, guid: str) -> str:
        """The release's NZB with the key; without one (public pages), the sign-in page."""
        return self.feed_url(f"/nzb/{guid}", {})

    def feed_url(self, path: str, params: dict[str, str | int]) -> str:
        """A feed (`/rss`, `/api`) or download URL with the key, or the sign-in page."""
        if not self.can_download:
            return self.sign_in_url
        query = {**params, **({"apikey": self.key} if self.key is not None else {})}
        return f"{path}?{urlencode(query)}" if query else path


class SignInNeeded(Exception):
    """A closed page was asked for without a key: answered by a redirect to sign in."""

    def __init__(self, here: str) -> None:
        super().__init__(here)
        self.here = here


def visitor(request: Request, catalog: Catalog) -> PageAccess:
    """The visitor's access: the sign-in cookie's key, else a valid `apikey` in the URL
    (links made before sign-in existed); a key no longer accepted counts as none."""
    signed = cookie_key(request)
    given = (request.query_params.get("apikey") or "").strip() or None
    key, signed_in = None, False
    if signed is not None and _checked(request, catalog, signed):
        key, signed_in = signed, True
    elif given is not None and _checked(request, catalog, given):
        key = given
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return PageAccess(key, signed_in, not catalog.settings.open_api, here)


def page_access(request: Request, catalog: CatalogDep) -> PageAccess:
    """The dependency of every closed page: its visitor's access, or SignInNeeded."""
    access = visitor(request, catalog)
    if access.key is None and pages_closed(catalog.settings):
        raise SignInNeeded(access.here)
    return access


PageAccessDep = Annotated[PageAccess, Depends(page_access)]


def accepted(catalog: Catalog, key: str) -> bool:
    return len(key) <= MAX_KEY_CHARS and catalog.limits.allowed(key)


def _checked(request: Request, catalog: Catalog, key: str) -> bool:
    """Whether a page's key (cookie or URL) is accepted; a wrong one counts against the
    address, and a slowed address's keys are not looked at: a page answering 200 or 303
    would otherwise tell a guess right from wrong at full speed."""
    if slowed(request, catalog):
        return False
    if accepted(catalog, key):
        return True
    wrong_key(request, catalog, key, request.url.path)
    return False


def forget_stale(response: Response, request: Request, catalog: Catalog, access: PageAccess
                 ) -> None:  # fmt: skip
    """Drop a kept key no longer accepted (checked, and counted, by `visitor`), so it is
    not counted again at every page; a slowed address's key was not checked: kept."""
    if access.signed_in or cookie_key(request) is None:
        return
    if not catalog.limits.wrong_keys.is_slowed(client_address(request)):
        forget_key(response, request)


def client_address(request: Request) -> str:
    return request.client.host if request.client else ""


def slowed(request: Request, catalog: Catalog) -> int:
    """Seconds this visitor's address must wait after too many wrong keys (0: none)."""
    return math.ceil(catalog.limits.wrong_keys.wait(client_address(request)))


def wrong_key(request: Request, catalog: Catalog, key: str, where: str = SIGN_IN) -> None:
    catalog.limits.wrong_keys.wrong(client_address(request), where, key)


def cookie_key(request: Request) -> str | None:
    raw = request.cookies.get(COOKIE)
    return unquote(raw) if raw else None


def sign_in_url(here: str) -> str:
    return SIGN_IN if here in ("", "/") else f"{SIGN_IN}?{urlencode({'next': here})}"


def safe_next(raw: str | None) -> str:
    """Where to go after signing in: a path of this site only, never another site's URL."""
    if (
        not raw
        or not raw.startswith("/")
        or raw.startswith(("//", "/\\"))
        or len(raw) > 2048
        or any(ord(c) < 0x20 or c == "\x7f" for c in raw)
        or raw.split("?", 1)[0] in (SIGN_IN, "/signout")
    ):
        return "/"
    return raw


def redirect_to_sign_in(request: Request, exc: Exception) -> Response:
    """The app's handler of SignInNeeded."""
    here = exc.here if isinstance(exc, SignInNeeded) else "/"
    return RedirectResponse(sign_in_url(here), status_code=303)


async def form_fields(request: Request) -> dict[str, str] | None:
    """A small url-encoded form's fields (the first of each name), or None when the body
    is not one: too big, another content type, or not text."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return None
    body = b""
    async for piece in request.stream():
        body += piece
        if len(body) > MAX_FORM_BYTES:
            return None
    fields: dict[str, str] = {}
    for name, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
        fields.setdefault(name, value)
    return fields


def keep_key(response: Response, request: Request, key: str) -> None:
    response.set_cookie(
        COOKIE,
        quote(key, safe=""),  # any key survives the cookie syntax (spaces, ; , ")
        max_age=COOKIE_SECONDS,
        path="/",
        secure=_https(request),
        httponly=True,
        samesite="lax",
    )


def forget_key(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path="/", secure=_https(request), httponly=True,
                           samesite="lax")  # fmt: skip


def _https(request: Request) -> bool:
    site: str = request.app.state.settings.site_url or ""
    return request.url.scheme == "https" or site.startswith("https:")
