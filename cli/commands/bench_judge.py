"""`usenet-indexer bench-judge [--releases N] [--catalog DIR]`: the junk judge's CPU per
million releases over a synthetic catalog."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-judge",
        run,
        help="benchmark the junk judge: CPU per million releases",
        description="Writes a synthetic catalog (a share of its releases probed, some "
        "passworded, a few with health verdicts), then times three judge runs: every "
        "release, a run with nothing changed, and a run after one new range of 100,000.",
    )
    p.add_argument("--releases", type=int, default=1_000_000, help="releases in the catalog")
    p.add_argument("--catalog", metavar="DIR", help="write the catalog here and keep it")


def run(args: argparse.Namespace) -> int:
    if args.releases < 1:
        print("bench-judge: --releases must be at least 1")
        return 2
    from bench.judge import run_bench

    print("\n".join(run_bench(args.releases, args.catalog)))
    return 0
