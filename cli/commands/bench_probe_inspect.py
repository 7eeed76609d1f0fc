"""`usenet-indexer bench-probe-inspect [--articles N] [--repeat N]`: CPU per probed article."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-probe-inspect",
        run,
        help="benchmark the article pass's decode and parse, per kind of article",
        description="Makes a real yEnc body of each kind the article pass reads (par2, "
        "RAR4, RAR5, a 7z tail, ZIP, NFO, media, garbage; 750 KB segments), inspects each "
        "N times, and prints CPU ms per article and the yEnc decode's share.",
    )
    p.add_argument("--articles", type=int, default=200, help="articles per kind and run")
    p.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per kind; the least CPU counts (a shared machine's load only adds time)",
    )


def run(args: argparse.Namespace) -> int:
    if args.articles < 1 or args.repeat < 1:
        print("bench-probe-inspect: --articles and --repeat must be at least 1")
        return 2
    from bench.probe_inspect import run_bench

    print(run_bench(args.articles, args.repeat).text())
    return 0
