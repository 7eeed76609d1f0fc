"""Server-rendered pages: search, release, browse by group and category, status.

Plain HTML forms and links: everything works without JavaScript.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from pipelines.catalog.health import DamagedPartition
from serving import categories, text
from serving.index.searcher import SearchQuery
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


def _int(value: str | None, low: int = 0, high: int = 10**12) -> int | None:
    if value is None or not (value.strip().isascii() and value.strip().isdigit()):
        return None
    return max(low, min(int(value), high))


def _render(request: Request, catalog: Catalog, name: str, **context: Any) -> HTMLResponse:
    context.setdefault("title", catalog.settings.site_title)
    context["site_title"] = catalog.settings.site_title
    context["all_categories"] = categories.CATEGORIES
    status = int(context.pop("status_code", 200))
    return templates.TemplateResponse(request, name, context, status_code=status)


@router.get("/")
def search_page(request: Request, catalog: CatalogDep) -> HTMLResponse:
    qp = request.query_params
    q = (qp.get("q") or "")[: catalog.settings.max_query_chars]
    cat = _int(qp.get("cat"))
    group = (qp.get("group") or "").strip()
    maxage = _int(qp.get("maxage"), 0, 100_000)
    minsize = _int(qp.get("minsize"), 0, 10**7)  # MB
    maxsize = _int(qp.get("maxsize"), 0, 10**7)
    page = _int(qp.get("page"), 1, 10**6) or 1
    size = catalog.settings.page_size
    query = SearchQuery(
        words=tuple(text.words(q)[:32]),
        categories=(cat,) if cat else (),
        groups=(group,) if group else (),
        min_posted=None if maxage is None else int(time.time()) - maxage * 86_400,
        min_bytes=None if minsize is None else minsize << 20,
        max_bytes=None if maxsize is None else maxsize << 20,
        offset=(page - 1) * size,
        limit=size,
    )
    result = catalog.snapshot.search(query)
    form = {"q": q, "cat": cat, "group": group, "maxage": maxage, "minsize": minsize,
            "maxsize": maxsize}  # fmt: skip
    return _render(
        request, catalog, "search.html", result=result, form=form, page=page,
        pages=max(1, -(-result.total // size)), groups=list(catalog.snapshot.stats()["groups"]),
        apikey=qp.get("apikey"),
    )  # fmt: skip


@router.get("/release/{guid}")
def release_page(guid: str, request: Request, catalog: CatalogDep) -> HTMLResponse:
    try:
        key = bytes.fromhex(guid)
    except ValueError:
        key = b""
    row = catalog.release(key) if len(key) == 20 else None
    if row is None:
        return _render(request, catalog, "error.html", message="No such release", status_code=404)
    try:
        files, unreadable = catalog.nzb_files(row), False
    except DamagedPartition:  # the release's facts still show; its files and NZB do not
        files, unreadable = [], True
    return _render(
        request, catalog, "release.html", row=row, files=files, title=row["name"],
        apikey=request.query_params.get("apikey"), unreadable=unreadable,
    )  # fmt: skip


@router.get("/groups")
def groups_page(request: Request, catalog: CatalogDep) -> HTMLResponse:
    stats = catalog.snapshot.stats()
    return _render(request, catalog, "groups.html", groups=stats["groups"])


@router.get("/categories")
def categories_page(request: Request, catalog: CatalogDep) -> HTMLResponse:
    stats = catalog.snapshot.stats()
    return _render(request, catalog, "categories.html", counts=stats["categories"])


@router.get("/status")
def status_page(request: Request, catalog: CatalogDep) -> HTMLResponse:
    stats = catalog.snapshot.stats()
    status = catalog.status()
    return _render(
        request, catalog, "status.html", stats=stats, status=status,
        refresh=catalog.index.last_refresh, error=catalog.last_error,
    )  # fmt: skip
