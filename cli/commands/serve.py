"""`usenet-indexer serve --catalog DIR`: the Newznab API, NZB downloads and web pages."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "serve",
        run,
        help="serve the catalog: Newznab API, NZB downloads, web pages",
        description="Serves a catalog (folder or fsspec URL) over HTTP with uvicorn. Settings "
        "also come from USENET_INDEXER_* environment variables and a TOML --config file; "
        "flags win. New partitions are picked up while serving (--refresh seconds).",
    )
    p.add_argument("--catalog", help="catalog root (or USENET_INDEXER_CATALOG)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--api-key", action="append", dest="api_keys", help="accepted key (repeatable)")
    p.add_argument("--open", action="store_true", help="serve the API without keys")
    p.add_argument(
        "--admin-key",
        action="append",
        dest="admin_keys",
        help="key of the admin pages (repeatable)",
    )
    p.add_argument(
        "--anonymous-requests",
        type=int,
        help="with --open, requests a client address may make a day without a key (0: no limit)",
    )
    p.add_argument(
        "--anonymous-downloads",
        type=int,
        help="with --open, downloads a client address may make a day without a key (0: no limit)",
    )
    p.add_argument(
        "--public-pages",
        action="store_true",
        help="with API keys, let anyone browse the web pages without signing in "
        "(downloads and feeds still need a key)",
    )
    p.add_argument("--corpus", help="the catalog's corpus: the admin page's Try runs `rules try`")
    p.add_argument("--rules", dest="rules_file", help="the header pass's rule set (JSON)")
    p.add_argument("--config", help="TOML file with Settings fields")
    p.add_argument("--title", help="site title")
    p.add_argument(
        "--refresh", type=float, help="seconds between looks for new partitions (default 2)"
    )
    p.add_argument("--index-dir", help="where index segments are kept (default: a temp dir)")
    p.add_argument(
        "--search-cache", type=int, help="recent search results kept per index snapshot (0: none)"
    )
    p.add_argument(
        "--access-log",
        action="store_true",
        help="log every request (off by default: a log line per request is CPU spent at "
        "hundreds of requests a second)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="server processes (default: 2, or 1 on a single core); with more than one, "
        "this process builds the index and the workers map the same segment files",
    )


def run(args: argparse.Namespace) -> int:
    from serving.settings import load_settings
    from serving.workers import Listen, default_workers, serve

    settings = load_settings(
        args.config,
        catalog=args.catalog,
        api_keys=args.api_keys,
        open_api=True if args.open else None,
        admin_keys=args.admin_keys,
        corpus=args.corpus,
        rules_file=args.rules_file,
        anonymous_requests=args.anonymous_requests,
        anonymous_downloads=args.anonymous_downloads,
        public_pages=True if args.public_pages else None,
        site_title=args.title,
        refresh_seconds=args.refresh,
        index_dir=args.index_dir,
        search_cache=args.search_cache,
    )
    if not settings.api_keys and not settings.open_api:
        print("serve: no API key configured and --open not given: the API will refuse every key")
    workers = default_workers() if args.workers is None else args.workers
    return serve(settings, workers, Listen(args.host, args.port, args.access_log))
