"""The Newznab routes as a raw ASGI layer in front of the FastAPI app.

`/api`, `/rss` and `/nzb/<guid>` are what clients poll, many times a minute each. Through
FastAPI a request paid its middleware, dependency solving and a hop to the thread
pool and back (~1-2 ms of CPU, as much as the search itself); here it is parsed and
answered straight from the event loop. Searches, caps and details run inline: they
read only the memory-mapped index, a few milliseconds at most, and one process runs
one request at a time anyway. NZB downloads read the catalog (a network filesystem,
perhaps), so they go to the thread pool like any sync route. Every other path falls
through to the FastAPI app (the web pages, static files).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from serving.newznab import api
from serving.newznab import params as P
from serving.state import Catalog

_BASES_KEPT = 1024  # distinct Host headers remembered (hostile ones cannot grow it)


class NewznabEndpoints:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._bases: dict[tuple[Any, ...], str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"] if scope["type"] == "http" else ""
        feed = path in ("/api", "/rss")
        download = path.startswith("/nzb/") and len(path) > 5 and path.count("/") == 2
        if not feed and not download:
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _send(send, 405, b"Method Not Allowed", "text/plain", [("Allow", "GET, HEAD")])
            return
        catalog: Catalog = scope["app"].state.catalog
        query = scope["query_string"].decode("latin-1")  # as Starlette reads it
        params = P.Params(parse_qsl(query, keep_blank_values=True))
        client = client_address(scope)  # limits and wrong keys count per address
        if download:
            reply = await run_in_threadpool(api.nzb, catalog, params, path[5:], client)
        elif path == "/api" and api.function_of(params) == "get":
            base = self._base(scope, catalog)
            reply = await run_in_threadpool(api.api, catalog, params, base, client)
        else:
            serve = api.api if path == "/api" else api.rss
            reply = serve(catalog, params, self._base(scope, catalog), client)
        body = b"" if scope["method"] == "HEAD" else reply.body
        await _send(send, 200, body, reply.media_type, reply.headers, len(reply.body))

    def _base(self, scope: Scope, catalog: Catalog) -> str:
        """The base URL feed links start with: the configured one, or this request's."""
        if catalog.settings.site_url:
            return catalog.settings.site_url.rstrip("/")
        host = next((v for k, v in scope["headers"] if k == b"host"), None)
        server = scope.get("server")
        ident = (scope.get("scheme"), host, scope.get("root_path"), server and tuple(server))
        found = self._bases.get(ident)
        if found is None:
            if len(self._bases) >= _BASES_KEPT:
                self._bases.clear()
            found = self._bases[ident] = str(Request(scope).base_url).rstrip("/")
        return found


def client_address(scope: Scope) -> str:
    """The client's address: uvicorn puts a trusted proxy's `X-Forwarded-For` there
    (`--forwarded-allow-ips`, 127.0.0.1 by default), so behind a local proxy it is the
    visitor's own, not the proxy's."""
    client = scope.get("client")
    return str(client[0]) if client else ""


async def _send(send: Send, status: int, body: bytes, media_type: str,
                headers: list[tuple[str, str]], length: int | None = None) -> None:  # fmt: skip
    raw = [
        (b"content-type", media_type.encode("latin-1")),
        (b"content-length", str(len(body) if length is None else length).encode()),
        *((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
