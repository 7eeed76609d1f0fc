"""`usenet-indexer serve --catalog DIR`: the Newznab API, NZB downloads and web pages."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
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
    p.add_argument("--config", help="TOML file with Settings fields")
    p.add_argument("--title", help="site title")
    p.add_argument("--refresh", type=float, help="seconds between looks for new partitions")
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
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from serving.app import create_app
    from serving.settings import load_settings

    settings = load_settings(
        args.config,
        catalog=args.catalog,
        api_keys=args.api_keys,
        open_api=True if args.open else None,
        site_title=args.title,
        refresh_seconds=args.refresh,
        index_dir=args.index_dir,
        search_cache=args.search_cache,
    )
    if not settings.api_keys and not settings.open_api:
        print("serve: no API key configured and --open not given: the API will refuse every key")
    if args.workers is None:
        args.workers = default_workers()
    if args.workers <= 1:
        uvicorn.run(create_app(settings), **_uvicorn_options(args))
        return 0
    return _run_workers(settings, args)


def default_workers() -> int:
    """Two processes on two cores or more: Python runs one request at a time per process,
    and measured on the 2-core target two workers serve ~10-15 % more searches a second
    than one. Not more: each worker holds ~300-450 MB of its own (the 1 GB budget fits
    two beside the index builder), and counters and grabs are per worker."""
    import os

    return min(2, os.cpu_count() or 1)


def _uvicorn_options(args: argparse.Namespace) -> dict[str, Any]:
    # uvloop and httptools (C parsers, dependencies of ours) rather than asyncio's loop
    # and h11: uvicorn's share of a request is several times smaller.
    return {"host": args.host, "port": args.port, "log_level": "info", "loop": "uvloop",
            "http": "httptools", "access_log": args.access_log}  # fmt: skip


def _run_workers(settings: Any, args: argparse.Namespace) -> int:
    """One builder (this process) and N workers that follow its segments."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    import threading

    import uvicorn

    from serving.app import SETTINGS_ENV
    from serving.index.manager import IndexManager

    # The NZB kernels compiled into numba's cache once, by a short-lived process (LLVM's
    # memory would stay with this one): the workers then load them from the cache.
    load = "from pipelines.nzb.lookup import load_kernels; load_kernels()"
    # Its own process group: a Ctrl-C reaches only this process, which ends it quietly
    # (subprocess.run kills it), instead of the child printing a KeyboardInterrupt.
    subprocess.run([sys.executable, "-c", load], check=False, process_group=0)
    index_dir = settings.index_dir or tempfile.mkdtemp(prefix="usenet-indexer-index-")
    builder = IndexManager(settings.catalog, index_dir, in_process=settings.build_in_process)
    report = builder.refresh()
    print(
        f"serve: index ready ({report.kind}, {report.seconds:.1f} s); "
        f"starting {args.workers} workers"
    )
    stop = threading.Event()
    thread = threading.Thread(
        target=builder.run_forever, args=(settings.refresh_seconds, stop), daemon=True
    )
    thread.start()
    worker = settings.model_copy(update={"index_dir": index_dir, "follow_index": True})
    os.environ[SETTINGS_ENV] = worker.model_dump_json()
    try:
        config = uvicorn.Config("serving.app:app_from_env", factory=True, workers=args.workers,
                                **_uvicorn_options(args))  # fmt: skip
        _supervisor_class()(config, sockets=[config.bind_socket()]).run()
    except KeyboardInterrupt:  # before the supervisor took SIGINT over: stop as it would
        pass
    finally:
        stop.set()
        thread.join(timeout=10)
        builder.close()
        if settings.index_dir is None:
            shutil.rmtree(index_dir, ignore_errors=True)
    return 0


def _supervisor_class() -> type:
    import signal

    from uvicorn.supervisors import Multiprocess

    class Supervisor(Multiprocess):
        """uvicorn's supervisor, its workers started with SIGINT blocked (a child inherits
        the mask). A Ctrl-C while they were importing made each print a KeyboardInterrupt
        traceback; now only this process takes it (held until the workers are started),
        and stops them with SIGTERM, as it does once they serve."""

        def init_processes(self) -> None:
            held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                super().init_processes()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    return Supervisor
