"""The FastAPI app: `/api` and `/rss` (Newznab), `/nzb/<guid>`, the web pages, `/static`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from serving import admin
from serving.newznab.asgi import NewznabEndpoints
from serving.settings import Settings
from serving.signin import SignInNeeded, redirect_to_sign_in
from serving.state import Catalog
from serving.web import router as web_router


def create_app(
    settings: Settings, catalog: Catalog | None = None, background: bool = True
) -> FastAPI:
    """The app over `settings.catalog`; tests pass a ready `catalog` to share one."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = app.state.catalog is None
        if own:
            app.state.catalog = Catalog(settings)
            app.state.catalog.start(background=background)
        # Downloads run in the thread pool: its first use imports anyio's backend and
        # starts a thread (~0.7 s here), which the first download would otherwise wait for.
        await run_in_threadpool(lambda: None)
        try:
            yield
        finally:
            if own:
                app.state.catalog.close()

    app = FastAPI(title=settings.site_title, lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.catalog = catalog
    app.state.settings = settings
    # /api, /rss and /nzb are answered by this layer before FastAPI's own stack.
    app.add_middleware(NewznabEndpoints)
    app.include_router(web_router)
    admin.install(app)  # /admin: the rule set's pages and status.json, for an admin key
    app.add_exception_handler(SignInNeeded, redirect_to_sign_in)  # a closed page, no key
    static = Path(__file__).with_name("static")
    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return app


SETTINGS_ENV = "USENET_INDEXER_SERVE_JSON"


def app_from_env() -> FastAPI:
    """The app of one `serve --workers` worker: settings handed over by the parent."""
    import os

    return create_app(Settings.model_validate_json(os.environ[SETTINGS_ENV]))
