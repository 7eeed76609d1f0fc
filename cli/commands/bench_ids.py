"""`usenet-indexer bench-ids [--titles N] [--work DIR]`: the id import at IMDb's size (time,
peak memory) and the id lookup per release (µs)."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-ids",
        run,
        help="benchmark the id import (time, peak memory) and the lookup per release",
        description="Writes generated IMDb tables (title.basics of N titles, title.episode, "
        "title.akas; gzipped, IMDb's format), imports them in a child process (time, its "
        "peak resident memory), then times parsing and matching release names (µs each).",
    )
    p.add_argument("--titles", type=int, default=11_000_000, help="titles in title.basics")
    p.add_argument("--work", metavar="DIR", help="write the files and catalog here and keep them")
    p.add_argument(
        "--search-catalog",
        metavar="DIR",
        help="instead: searches by id against searches by word over this catalog's index "
        "(its names made an id table; writes _ids/ and release_ids/ into it)",
    )


def run(args: argparse.Namespace) -> int:
    if args.titles < 1:
        print("bench-ids: --titles must be at least 1")
        return 2
    if args.search_catalog:
        from bench.ids_search import run_search_bench

        print("\n".join(run_search_bench(args.search_catalog)))
        return 0
    from bench.ids import run_bench

    print("\n".join(run_bench(args.titles, args.work)))
    return 0
