"""`/api` (every Newznab function), `/rss` (newest releases per category), `/nzb/<guid>`.

Plain functions from (catalog, parameters, base URL) to a `Reply`, so the raw ASGI
endpoint in `asgi.py` serves them without a framework in between. Every failure
becomes a Newznab error with HTTP 200; an unexpected exception is logged and answered
with code 900, never a stack trace.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

from pipelines.catalog.health import DamagedPartition
from pipelines.nzb.writer import nzb_file_name
from pipelines.predb import requests, shown
from serving.index.searcher import SearchQuery, SearchResult, Snapshot
from serving.newznab import errors as E
from serving.newznab import params as P
from serving.newznab import render
from serving.state import Catalog
from serving.timing import Stages

log = logging.getLogger(__name__)
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
NZB = "application/x-nzb"
# The path stays in the server's log and status page, not in a reply to any client.
_UNREADABLE = "NZB unavailable: the release's file list is in a damaged catalog partition"


@dataclass(frozen=True)
class Reply:
    body: bytes
    media_type: str
    headers: list[tuple[str, str]] = field(default_factory=list)


def _reply(body: str | bytes, media_type: str) -> Reply:
    return Reply(body.encode() if isinstance(body, str) else body, media_type)


def _error(code: int, description: str, as_json: bool) -> Reply:
    if as_json:
        return _reply(render.error_json(code, description), JSON)
    return _reply(render.error_xml(code, description), XML)


def guarded(params: P.Params, handler: Callable[[bool], Reply], what: str) -> Reply:
    as_json = (params.get("o") or "").lower() == "json"
    try:
        return handler(as_json)
    except E.NewznabError as err:
        return _error(err.code, err.description, as_json)
    except Exception:
        log.exception("api request failed: %s", what)
        return _error(E.UNKNOWN, "Unknown error", as_json)


def authorise(
    catalog: Catalog, params: P.Params, client: str = "", where: str = "/api"
) -> str | None:
    key = P.key_of(params)
    limits = catalog.limits
    # an address sending wrong keys is slowed before its key is looked at (serving.wrong_keys)
    wait = limits.wrong_keys.wait(client) if key is not None and not limits.open_api else 0
    if wait:
        raise E.NewznabError(E.REQUEST_LIMIT, f"Request limit reached: too many wrong keys "
                             f"from this address, try again in {math.ceil(wait)} s")  # fmt: skip
    if not limits.allowed(key):
        if key is None:
            raise E.NewznabError(E.BAD_KEY, "Incorrect user credentials: no API key given")
        limits.wrong_keys.wrong(client, where, key)
        raise E.NewznabError(E.BAD_KEY, "Incorrect user credentials")
    if not limits.count_request(key, client):
        raise E.NewznabError(E.REQUEST_LIMIT, "Request limit reached")
    return key


def _feed(catalog: Catalog, base: str, q: SearchQuery, key: str | None,
          params: P.Params, as_json: bool) -> Reply:  # fmt: skip
    wanted = None
    attrs = params.get("attrs")
    if attrs and params.get("extended") != "1":
        wanted = {a.strip().lower() for a in attrs.split(",") if a.strip()}
    snapshot = catalog.snapshot
    result = snapshot.search(q)
    asked = params.get("q")
    if not result.total and params.get("t") == "search" and asked:
        # a scene title the PreDB knows and the catalog does not: scanned for at once (P2)
        requests.ask(catalog.settings.catalog, asked)
    return _page(catalog, snapshot, render.Links(base, key), result, q.offset, wanted, as_json)


def _page(catalog: Catalog, snapshot: Snapshot, links: render.Links, result: SearchResult,
          offset: int, wanted: set[str] | None, as_json: bool) -> Reply:  # fmt: skip
    grabs = catalog.limits.grabs.current()
    judged, sources = snapshot.judged, catalog.sources

    def judged_and_sources(key: bytes) -> list[tuple[str, str]]:
        # health and verdict, of the snapshot that found them; a spot's or an import's
        return judged.attrs(key) + sources.attrs(key)

    extra: Callable[[bytes], list[tuple[str, str]]] = judged_and_sources
    predb = shown.current(catalog.settings.catalog)  # prematch, pretime, nuked (docs/PREDB.md)
    if predb.by_release:
        extra = _with_pre(extra, predb)
    if as_json:
        body = render.feed_json(catalog.settings, links, result.rows, offset, result.total,
                                grabs, wanted, extra)  # fmt: skip
        return _reply(body, JSON)
    body_xml = render.feed_xml(catalog.settings, links, result.items, offset, result.total,
                               grabs, wanted, extra)  # fmt: skip
    return _reply(body_xml, XML)


def _with_pre(
    judged: Callable[[bytes], list[tuple[str, str]]], predb: shown.Shown
) -> Callable[[bytes], list[tuple[str, str]]]:
    def attrs(key: bytes) -> list[tuple[str, str]]:
        return judged(key) + predb.attrs(key)

    return attrs


def nzb_reply(catalog: Catalog, key: str | None, release: bytes, client: str = "") -> Reply:
    stages = Stages()
    row = catalog.download_row(release)
    # a dead release (its articles gone) is never returned: its NZB would fail
    if row is None or catalog.snapshot.judged.is_gone(release):
        raise E.NewznabError(E.NO_ITEM, "No such item")
    # A partition known damaged fails the download before it is counted; one found so
    # while reading fails it the same way (an NZB lacking files would fail downloaders).
    if catalog.damaged_files(row) is not None:
        raise E.NewznabError(E.UNKNOWN, _UNREADABLE)
    if not catalog.limits.count_download(key, release, client):
        raise E.NewznabError(E.DOWNLOAD_LIMIT, "Download limit reached")
    stages.mark("find")
    try:
        body = catalog.nzb(row, stages.mark)
    except DamagedPartition as exc:
        raise E.NewznabError(E.UNKNOWN, _UNREADABLE) from exc
    name = nzb_file_name(row["name"])
    ascii_name = name.encode("ascii", "replace").decode().replace("?", "_")
    disposition = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"
    headers = [("Content-Disposition", disposition), ("X-DNZB-Name", ascii_name[:-4]),
               ("Server-Timing", stages.header())]  # fmt: skip
    return Reply(body, NZB, headers)


def function_of(params: P.Params) -> str:
    """The `t` parameter, aliases resolved ('' when missing)."""
    function = (params.get("t") or "").lower()
    return ALIASES.get(function, function)


def api(catalog: Catalog, params: P.Params, base: str, client: str = "") -> Reply:
    def handle(as_json: bool) -> Reply:
        function = function_of(params)
        if not function:
            raise E.NewznabError(E.MISSING, "Missing parameter: t")
        if function == "caps":
            snapshot = catalog.snapshot.stats()
            data = render.caps(catalog.settings, render.Links(base, None),
                               set(snapshot["categories"]), list(snapshot["groups"]),
                               snapshot.get("ids", ()))  # fmt: skip
            return (
                _reply(render.caps_json(data), JSON)
                if as_json
                else _reply(render.caps_xml(data), XML)
            )
        if function in NOT_AVAILABLE:
            raise E.NewznabError(E.NOT_AVAILABLE, "Function not available")
        if function not in SEARCHES and function not in ("get", "details"):
            raise E.NewznabError(E.NO_FUNCTION, "No such function")
        key = authorise(catalog, params, client)
        if function == "get":
            return nzb_reply(catalog, key, P.release_key(params), client)
        if function == "details":
            current = catalog.snapshot
            release = P.release_key(params)
            found = current.lookup(release)
            if found is None or current.judged.is_gone(release):  # dead: never returned
                raise E.NewznabError(E.NO_ITEM, "No such item")
            return _page(catalog, current, render.Links(base, key), found, 0, None, as_json)
        q = P.search_query(function, params, catalog.settings)
        return _feed(catalog, base, q, key, params, as_json)

    return guarded(params, handle, "/api")


def rss(catalog: Catalog, params: P.Params, base: str, client: str = "") -> Reply:
    """Newest releases of the categories in `t` (comma list; 0 or none: every category)."""

    def handle(as_json: bool) -> Reply:
        key = authorise(catalog, params, client, "/rss")
        raw = params.get("t") or "0"
        cats = P.categories(P.Params([("cat", raw)]))
        cats = tuple(c for c in cats if c != 0)
        limit = P.integer(params, "num", None) or P.integer(params, "limit", None)
        limit = max(1, min(limit or catalog.settings.default_limit, catalog.settings.max_limit))
        q = SearchQuery(categories=cats, limit=limit, judged=P.show_judged(params))
        return _feed(catalog, base, q, key, params, as_json)

    return guarded(params, handle, "/rss")


def nzb(catalog: Catalog, params: P.Params, guid: str, client: str = "") -> Reply:
    def handle(as_json: bool) -> Reply:
        key = authorise(catalog, params, client, "/nzb")
        release = P.release_key(P.Params([("id", guid.removesuffix(".nzb"))]))
        return nzb_reply(catalog, key, release, client)

    return guarded(params, handle, "/nzb")
