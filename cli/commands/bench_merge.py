"""`usenet-indexer bench-merge [--releases N] [--span-releases N]`: CPU per million
releases of the merges over a synthetic catalog."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-merge",
        run,
        help="benchmark the merges: CPU per million releases",
        description="Writes a synthetic catalog of one group (ordinary releases, some "
        "with a par2 set of their own files, obfuscated uploads split a release per file, "
        "sidecars), merges it in one run and a span a run, and prints CPU-seconds per "
        "million releases.",
    )
    p.add_argument("--releases", type=int, default=200_000, help="releases in the catalog")
    p.add_argument("--span-releases", type=int, default=25_000, help="releases per span")
    p.add_argument("--keep", metavar="DIR", help="write the catalogs here and keep them")


def run(args: argparse.Namespace) -> int:
    if args.releases < 1 or args.span_releases < 1:
        print("bench-merge: --releases and --span-releases must be at least 1")
        return 2
    from bench.merge import run_bench

    print(run_bench(args.releases, args.span_releases, args.keep).text())
    return 0
