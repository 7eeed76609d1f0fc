"""`usenet-indexer bench-serve [--releases N]`: measure the server on a big catalog."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-serve",
        run,
        help="benchmark the server: search and NZB latency, throughput, memory, refresh",
        description="Starts `serve` on a catalog (writes a synthetic one of --releases "
        "releases first when the folder holds none), then measures t=search and t=get "
        "latency, sustained searches per second, the server's memory, and how long a "
        "newly landed range takes to become searchable. Prints the figures.",
    )
    p.add_argument("--catalog", default="var/bench-catalog", help="catalog folder")
    p.add_argument("--releases", type=int, default=10_000_000, help="size of a new catalog")
    p.add_argument("--searches", type=int, default=400, help="sequential searches timed")
    p.add_argument("--seconds", type=float, default=10.0, help="length of the load run")
    p.add_argument("--clients", type=int, default=4, help="concurrent clients in the load run")
    p.add_argument("--workers", type=int, default=2, help="server worker processes")
    p.add_argument(
        "--index-dir",
        help="keep the index here and reuse it on the next run (skips the full build)",
    )
    p.add_argument(
        "--search-cache",
        type=int,
        help="the server's --search-cache (0: every search hits the index)",
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON line")


def run(args: argparse.Namespace) -> int:
    from bench.serving import print_report, run_bench

    report = run_bench(
        args.catalog,
        args.releases,
        args.searches,
        args.seconds,
        args.clients,
        args.workers,
        args.index_dir,
        args.search_cache,
    )
    print_report(report, args.json)
    return 0
