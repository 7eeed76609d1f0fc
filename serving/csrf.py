"""Form tokens: a form of ours is taken only from a page of ours (no cross-site posts).

Double-submit: the first page a browser gets sets a random token in a cookie
(`usenet_indexer_csrf`: HttpOnly, SameSite=Strict) and puts the same token in a hidden
field of each of its forms. Another site can make a browser post to us, but can neither
read our cookie nor our page, so its post lacks the matching field and is refused. No
server secret is needed: every worker process checks a post the same way. A browser
that says the post came from another site (`Origin`, `Sec-Fetch-Site`) is refused
even with a token.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import Response

COOKIE = "usenet_indexer_csrf"
FIELD = "csrf"
_CHARS = 43  # secrets.token_urlsafe(32)


def token(request: Request) -> str:
    """The browser's form token: its cookie's, or a new one `keep` then sets."""
    kept = request.cookies.get(COOKIE, "")
    if len(kept) == _CHARS and kept.isascii():
        return kept
    new: str | None = getattr(request.state, "csrf_new", None)
    if new is None:
        new = request.state.csrf_new = secrets.token_urlsafe(32)
    return new


def keep(response: Response, request: Request) -> None:
    """Set the cookie of a token `token` made for this request."""
    new = getattr(request.state, "csrf_new", None)
    if new is not None:
        response.set_cookie(COOKIE, new, path="/", httponly=True, samesite="strict",
                            secure=_https(request))  # fmt: skip


def refusal(request: Request, fields: dict[str, str]) -> str | None:
    """Why a posted form is refused, or None when it came from a page of ours."""
    if request.headers.get("sec-fetch-site", "").lower() == "cross-site":
        return "cross-site"
    origin = request.headers.get("origin")
    if origin is not None and not _ours(request, origin):
        return "cross-site"
    kept = request.cookies.get(COOKIE, "")
    sent = fields.get(FIELD, "")
    if not kept or not hmac.compare_digest(kept.encode(), sent.encode()):
        return "no form token"
    return None


def _ours(request: Request, origin: str) -> bool:
    host = urlsplit(origin).netloc.lower()
    site = request.app.state.settings.site_url or ""
    # behind a proxy that rewrites Host, the public host is X-Forwarded-Host or site_url's
    # (a cross-site form post cannot set a header: only the browser's Origin counts there)
    own = {request.headers.get("host", "").lower(), urlsplit(site).netloc.lower(),
           request.headers.get("x-forwarded-host", "").lower()}  # fmt: skip
    return bool(host) and host in own - {""}


def _https(request: Request) -> bool:
    site: str = request.app.state.settings.site_url or ""
    return request.url.scheme == "https" or site.startswith("https:")
