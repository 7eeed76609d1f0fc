"""`/api` (every Newznab function) and `/rss` (newest releases per category).

Every failure becomes a Newznab error with HTTP 200; an unexpected exception is
logged and answered with code 900, never a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import quote

from fastapi import APIRouter, Request, Response

from pipelines.nzb.writer import nzb_file_name
from serving.index.searcher import SearchQuery
from serving.newznab import errors as E
from serving.newznab import params as P
from serving.newznab import render
from serving.state import Catalog, CatalogDep

log = logging.getLogger(__name__)
router = APIRouter(tags=["newznab"])
SEARCHES = {"search", "tvsearch", "movie", "music", "book"}
ALIASES = {
    "tv-search": "tvsearch",
    "movie-search": "movie",
    "audio-search": "music",
    "audio": "music",
    "book-search": "book",
}
NOT_AVAILABLE = {"register", "info", "nfo", "n", "comments", "cartadd", "cartdel", "user"}
XML = "application/xml; charset=utf-8"
JSON = "application/json; charset=utf-8"


def base_url(request: Request, catalog: Catalog) -> str:
    return (catalog.settings.site_url or str(request.base_url)).rstrip("/")


def _error(code: int, description: str, as_json: bool) -> Response:
    if as_json:
        return Response(render.error_json(code, description), media_type=JSON)
    return Response(render.error_xml(code, description), media_type=XML)


def _guarded(request: Request, handler: Callable[[P.Params, bool], Response]) -> Response:
    params = P.Params(request.query_params.multi_items())
    as_json = (params.get("o") or "").lower() == "json"
    try:
        return handler(params, as_json)
    except E.NewznabError as err:
        return _error(err.code, err.description, as_json)
    except Exception:
        log.exception("api request failed: %s", request.url.path)
        return _error(E.UNKNOWN, "Unknown error", as_json)


def _authorise(catalog: Catalog, params: P.Params) -> str | None:
    key = P.key_of(params)
    if not catalog.limits.allowed(key):
        if key is None:
            raise E.NewznabError(E.BAD_KEY, "Incorrect user credentials: no API key given")
        raise E.NewznabError(E.BAD_KEY, "Incorrect user credentials")
    if not catalog.limits.count_request(key):
        raise E.NewznabError(E.REQUEST_LIMIT, "Request limit reached")
    return key


def _feed(catalog: Catalog, request: Request, q: SearchQuery, key: str | None,
          params: P.Params, as_json: bool) -> Response:  # fmt: skip
    result = catalog.snapshot.search(q)
    links = render.Links(base_url(request, catalog), key)
    wanted = None
    attrs = params.get("attrs")
    if attrs and params.get("extended") != "1":
        wanted = {a.strip().lower() for a in attrs.split(",") if a.strip()}
    grabs = catalog.limits.grabs
    make = render.feed_json if as_json else render.feed_xml
    body = make(catalog.settings, links, result.rows, q.offset, result.total, grabs, wanted)
    return Response(body, media_type=JSON if as_json else XML)


def nzb_response(catalog: Catalog, key: str | None, release: bytes) -> Response:
    row = catalog.release(release)
    if row is None:
        raise E.NewznabError(E.NO_ITEM, "No such item")
    if not catalog.limits.count_download(key, release):
        raise E.NewznabError(E.DOWNLOAD_LIMIT, "Download limit reached")
    body = catalog.nzb(row)
    name = nzb_file_name(row["name"])
    ascii_name = name.encode("ascii", "replace").decode().replace("?", "_")
    disposition = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"
    return Response(
        body,
        media_type="application/x-nzb",
        headers={"Content-Disposition": disposition, "X-DNZB-Name": ascii_name[:-4]},
    )


@router.get("/api")
def api(request: Request, catalog: CatalogDep) -> Response:
    def handle(params: P.Params, as_json: bool) -> Response:
        function = (params.get("t") or "").lower()
        function = ALIASES.get(function, function)
        if not function:
            raise E.NewznabError(E.MISSING, "Missing parameter: t")
        if function == "caps":
            snapshot = catalog.snapshot.stats()
            links = render.Links(base_url(request, catalog), None)
            data = render.caps(catalog.settings, links, set(snapshot["categories"]),
                               list(snapshot["groups"]))  # fmt: skip
            body = render.caps_json(data) if as_json else render.caps_xml(data)
            return Response(body, media_type=JSON if as_json else XML)
        if function in NOT_AVAILABLE:
            raise E.NewznabError(E.NOT_AVAILABLE, "Function not available")
        if function not in SEARCHES and function not in ("get", "details"):
            raise E.NewznabError(E.NO_FUNCTION, "No such function")
        key = _authorise(catalog, params)
        if function == "get":
            return nzb_response(catalog, key, P.release_key(params))
        if function == "details":
            release = P.release_key(params)
            row = catalog.release(release)
            if row is None:
                raise E.NewznabError(E.NO_ITEM, "No such item")
            links = render.Links(base_url(request, catalog), key)
            make = render.feed_json if as_json else render.feed_xml
            body = make(catalog.settings, links, [row], 0, 1, catalog.limits.grabs)
            return Response(body, media_type=JSON if as_json else XML)
        if function == "movie" and params.get("imdbid") and not params.get("q"):
            # The catalog holds no IMDb ids (yet): an id alone matches nothing.
            P.search_query(function, params, catalog.settings)  # still validate the rest
            q = SearchQuery(words=("\x1fno-imdb",), limit=1)
            return _feed(catalog, request, q, key, params, as_json)
        q = P.search_query(function, params, catalog.settings)
        return _feed(catalog, request, q, key, params, as_json)

    return _guarded(request, handle)


@router.get("/rss")
def rss(request: Request, catalog: CatalogDep) -> Response:
    """Newest releases of the categories in `t` (comma list; 0 or none: every category)."""

    def handle(params: P.Params, as_json: bool) -> Response:
        key = _authorise(catalog, params)
        raw = params.get("t") or "0"
        cats = P.categories(P.Params([("cat", raw)]))
        cats = tuple(c for c in cats if c != 0)
        limit = P.integer(params, "num", None) or P.integer(params, "limit", None)
        limit = max(1, min(limit or catalog.settings.default_limit, catalog.settings.max_limit))
        q = SearchQuery(categories=cats, limit=limit)
        return _feed(catalog, request, q, key, params, as_json)

    return _guarded(request, handle)


@router.get("/nzb/{guid}")
def nzb(guid: str, request: Request, catalog: CatalogDep) -> Response:
    def handle(params: P.Params, as_json: bool) -> Response:
        key = _authorise(catalog, params)
        return nzb_response(
            catalog, key, P.release_key(P.Params([("id", guid.removesuffix(".nzb"))]))
        )

    return _guarded(request, handle)
