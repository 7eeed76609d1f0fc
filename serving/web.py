"""Server-rendered pages: search, release, browse by group and category, status, sign-in.

Plain HTML forms and links: everything works without JavaScript. Who may see a page and
the key its links carry: `serving/signin.py`.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from pipelines.catalog.health import DamagedPartition
from pipelines.index.parsed_chunk import SOURCE_NAMES
from pipelines.predb import shown
from serving import categories, csrf, signin, text
from serving.index.searcher import SearchQuery
from serving.signin import PageAccess, PageAccessDep
from serving.state import Catalog, CatalogDep

router = APIRouter(tags=["web"], default_response_class=HTMLResponse)
templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))


def human_size(n: int | float) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"


def human_age(ts: int) -> str:
    seconds = max(0, int(time.time()) - int(ts))
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86_400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86_400} d"


templates.env.filters["size"] = human_size
templates.env.filters["age"] = human_age
templates.env.filters["category"] = lambda c: categories.name(int(c))
templates.env.filters["hex"] = lambda b: b.hex()


def utc_time(ts: int) -> str:
    """A stamp as a UTC date and time (seconds; milli-, micro- or nanoseconds by size)."""
    value = int(ts)
    for scale in (10**9, 10**6, 10**3):
        if value > scale * 10**10:
            value //= scale
            break
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(value))


templates.env.filters["utc"] = utc_time


def _int(value: str | None, low: int = 0, high: int = 10**12) -> int | None:
    if value is None or not (value.strip().isascii() and value.strip().isdigit()):
        return None
    return max(low, min(int(value), high))


def _render(
    request: Request, catalog: Catalog, access: PageAccess, name: str, **context: Any
) -> HTMLResponse:
    context.setdefault("title", catalog.settings.site_title)
    context["site_title"] = catalog.settings.site_title
    context["all_categories"] = categories.CATEGORIES
    context["access"] = access
    context["csrf"] = csrf.token(request)  # every form's hidden field (serving/csrf.py)
    status = int(context.pop("status_code", 200))
    response = templates.TemplateResponse(request, name, context, status_code=status)
    csrf.keep(response, request)
    signin.forget_stale(response, request, catalog, access)  # a revoked key, counted once
    # a page whose links carry a key is the visitor's own: no shared cache keeps it
    response.headers["Cache-Control"] = "private, no-store" if access.key else "no-cache"
    response.headers["Vary"] = "Cookie"
    return response


@router.get("/")
def search_page(request: Request, catalog: CatalogDep, access: PageAccessDep) -> HTMLResponse:
    qp = request.query_params
    q = (qp.get("q") or "")[: catalog.settings.max_query_chars]
    cat = _int(qp.get("cat"))
    group = (qp.get("group") or "").strip()
    maxage = _int(qp.get("maxage"), 0, 100_000)
    minsize = _int(qp.get("minsize"), 0, 10**7)  # MB
    maxsize = _int(qp.get("maxsize"), 0, 10**7)
    page = _int(qp.get("page"), 1, 10**6) or 1
    show_all = qp.get("judged") == "1"  # releases a verdict hides shown, with it
    film_or_show = (qp.get("id") or "").strip()[:40]
    size = catalog.settings.page_size
    query = SearchQuery(
        words=tuple(text.words(q)[:32]),
        categories=(cat,) if cat else (),
        groups=(group,) if group else (),
        # an id not understood finds nothing (never every release)
        ids=(page_id(film_or_show) or (("imdb", 0),)) if film_or_show else (),
        min_posted=None if maxage is None else int(time.time()) - maxage * 86_400,
        min_bytes=None if minsize is None else minsize << 20,
        max_bytes=None if maxsize is None else maxsize << 20,
        offset=(page - 1) * size,
        limit=size,
        judged=show_all,
    )
    snapshot = catalog.snapshot
    result = snapshot.search(query)
    rows = result.rows
    form = {"q": q, "cat": cat, "group": group, "maxage": maxage, "minsize": minsize,
            "maxsize": maxsize, "judged": show_all, "id": film_or_show}  # fmt: skip
    return _render(
        request, catalog, access, "search.html", result=result, form=form, page=page,
        pages=max(1, -(-result.total // size)), groups=list(snapshot.stats()["groups"]),
        feed=access.feed_url(*_feed_of(form)), judged=snapshot.judged,
        merged=merged_counts(catalog, [r["release_key"] for r in rows]),
        header_sources=HEADER_SOURCES,
    )  # fmt: skip


_PAGE_ID = re.compile(r"^(?:(tt)|(imdb|tvdb|tvmaze|rage|tvrage|tmdb):\s*(?:tt)?)(\d{1,10})$", re.I)


def page_id(raw: str) -> tuple[tuple[str, int], ...]:
    """The search page's id (`tt0944947`, `tvdb:121361`, `tmdb:24428`...) as a query's
    ids; () if it is none of them."""
    m = _PAGE_ID.match(raw.replace(" ", ""))
    if not m:
        return ()
    kind = "imdb" if m.group(1) else m.group(2).lower()
    return (({"rage": "tvrage"}.get(kind, kind), int(m.group(3))),)


# a release named by the header pass says how (`releases.source`); any other source is the
# article pass's (par2, archive, 7z, nfo, yenc), shown beside the name
HEADER_SOURCES = frozenset(SOURCE_NAMES.values())


def merged_counts(catalog: Catalog, keys: list[bytes]) -> dict[bytes, int]:
    """How many releases the merges joined into each of these (the page's rows: a lookup
    by key, not a read of the merges)."""
    if not keys or not catalog.views.has("release_merges"):
        return {}
    marks = ", ".join("?" * len(keys))
    rows = catalog.views.query(
        "SELECT into_key AS k, count(*) AS n FROM release_merges "
        f"WHERE into_key IN ({marks}) AND from_key <> into_key GROUP BY 1",
        list(keys),
    ).to_pylist()
    return {r["k"]: r["n"] for r in rows}


def _feed_of(form: dict[str, Any]) -> tuple[str, dict[str, str | int]]:
    """The Newznab feed of what the search page shows: `/rss` of its category (or of
    all) when only that is chosen, else `t=search` with the same filters (sizes in bytes)."""
    cat = form["cat"]
    shown: dict[str, str | int] = {"judged": 1} if form.get("judged") else {}
    if not any(form[k] not in (None, "") for k in ("q", "group", "maxage", "minsize", "maxsize")):
        return "/rss", {"t": cat or 0, **shown}
    params: dict[str, str | int] = {"t": "search", **shown}
    for name in ("q", "cat", "group", "maxage"):
        if form[name] not in (None, ""):
            params[name] = form[name]
    for name in ("minsize", "maxsize"):
        if form[name] is not None:
            params[name] = form[name] << 20
    return "/api", params


@router.get("/release/{guid}", response_model=None)
def release_page(
    guid: str, request: Request, catalog: CatalogDep, access: PageAccessDep
) -> Response:
    try:
        key = bytes.fromhex(guid)
    except ValueError:
        key = b""
    snapshot = catalog.snapshot
    row = snapshot.find(key) if len(key) == 20 else None
    merges, went = catalog.merged(key) if len(key) == 20 else ([], None)
    if row is None and went is not None and went["into_key"] != key:  # merged: that one's page
        return RedirectResponse(f"/release/{went['into_key'].hex()}", status_code=303)
    if row is None:
        return _render(
            request, catalog, access, "error.html", message="No such release", status_code=404
        )
    try:
        files, unreadable = catalog.nzb_files(row), False
    except DamagedPartition:  # the release's facts still show; its files and NZB do not
        files, unreadable = [], True
    return _render(
        request, catalog, access, "release.html", row=row, files=files, title=row["name"],
        unreadable=unreadable, judgment=snapshot.judged.find(key), merges=merges,
        grabs=catalog.limits.grabs.get(key), gone=snapshot.judged.is_gone(key),
        source=catalog.sources.about(key),
        pre=shown.current(catalog.settings.catalog).pre(key),
    )  # fmt: skip


@router.get("/groups")
def groups_page(request: Request, catalog: CatalogDep, access: PageAccessDep) -> HTMLResponse:
    stats = catalog.snapshot.stats()
    return _render(request, catalog, access, "groups.html", groups=stats["groups"])


@router.get("/categories")
def categories_page(request: Request, catalog: CatalogDep, access: PageAccessDep) -> HTMLResponse:
    stats = catalog.snapshot.stats()
    return _render(request, catalog, access, "categories.html", counts=stats["categories"])


@router.get("/status")
def status_page(request: Request, catalog: CatalogDep, access: PageAccessDep) -> HTMLResponse:
    stats = catalog.snapshot.stats()
    status = catalog.status()
    return _render(
        request, catalog, access, "status.html", stats=stats, status=status,
        refresh=catalog.index.last_refresh, error=catalog.last_error,
        predb=shown.summary(catalog.settings.catalog), settings=catalog.settings,
    )  # fmt: skip


@router.get("/predb")
def predb_page(
    request: Request, catalog: CatalogDep, access: PageAccessDep,
    state: str | None = None, category: str | None = None,
) -> HTMLResponse:  # fmt: skip
    """Recent pres with their state (filterable by state and section), and the counts
    per terminal state and match method."""
    where = catalog.settings.catalog
    pres = shown.recent(where, state or None, category or None)
    return _render(request, catalog, access, "predb.html", pres=pres, summary=shown.summary(where),
                   state=state or "", category=category or "", title="PreDB")  # fmt: skip


# -- signing in -------------------------------------------------------------------------

_WRONG_KEY = "That API key is not accepted here. Check it and try again."
_NO_KEY = "Enter your API key."
_STALE_KEY = "The key this browser kept is no longer accepted: sign in again."
_NO_TOKEN = "This form came from another site, or was open too long: sign in again here."
_SLOWED = "Too many wrong keys from this address: try again in {} s."


@router.get("/signin")
def sign_in_page(request: Request, catalog: CatalogDep) -> HTMLResponse:
    access = signin.visitor(request, catalog)
    stale = not access.signed_in and signin.cookie_key(request) is not None
    response = _sign_in_form(
        request, catalog, access, request.query_params.get("next"), _STALE_KEY if stale else ""
    )
    if stale:
        signin.forget_key(response, request)
    return response


@router.post("/signin")
async def sign_in(request: Request, catalog: CatalogDep) -> Response:
    access = signin.visitor(request, catalog)
    fields = await signin.form_fields(request)
    if fields is None:
        return _sign_in_form(request, catalog, access, None, _NO_KEY, 400)
    target = signin.safe_next(fields.get("next"))
    if csrf.refusal(request, fields) is not None:
        return _sign_in_form(request, catalog, access, target, _NO_TOKEN, 403)
    key = (fields.get("apikey") or "").strip()
    if not key and catalog.settings.open_api:
        return RedirectResponse(target, status_code=303)  # no key needed: nothing to keep
    if not key:
        return _sign_in_form(request, catalog, access, target, _NO_KEY, 400)
    wait = signin.slowed(request, catalog)  # wrong keys from this address: no key looked at
    if wait:
        return _sign_in_form(request, catalog, access, target, _SLOWED.format(wait), 429)
    if not signin.accepted(catalog, key):
        signin.wrong_key(request, catalog, key)
        return _sign_in_form(request, catalog, access, target, _WRONG_KEY, 403)
    response = RedirectResponse(target, status_code=303)
    signin.keep_key(response, request, key)
    return response


@router.post("/signout")
async def sign_out(request: Request, catalog: CatalogDep) -> Response:
    fields = await signin.form_fields(request)
    if fields is None or csrf.refusal(request, fields) is not None:  # not our page's form
        return Response("Sign out from the site's own page.", 403, media_type="text/plain")
    response = RedirectResponse(
        "/" if not signin.pages_closed(catalog.settings) else signin.SIGN_IN, status_code=303
    )
    signin.forget_key(response, request)
    return response


def _sign_in_form(
    request: Request,
    catalog: Catalog,
    access: PageAccess,
    next_url: str | None,
    message: str,
    status: int = 200,
) -> HTMLResponse:
    return _render(
        request, catalog, access, "signin.html", title=f"Sign in - {catalog.settings.site_title}",
        next=signin.safe_next(next_url), message=message, status_code=status,
        open_api=catalog.settings.open_api,
    )  # fmt: skip
