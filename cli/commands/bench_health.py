"""`usenet-indexer bench-health`: the health sweep's STATs a second per connection."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-health",
        run,
        help="measure the health sweep: STATs/s per connection against a paced serve-nntp",
        description="Generates a corpus, indexes it, serves it with serve-nntp paced like a "
        "provider (each STAT answered after --lag seconds) and sweeps it: prints STATs a "
        "second per connection, releases a second, CPU per STAT, and what a second sweep "
        "found due (docs/BENCHMARKS.md).",
    )
    p.add_argument("--articles", type=int, default=20_000, help="articles in the corpus")
    p.add_argument("--connections", type=int, default=4)
    p.add_argument(
        "--lines-per-second", type=float, default=25_000.0,
        help="serve-nntp's pace per connection (0: unpaced)",
    )  # fmt: skip
    p.add_argument(
        "--lag", type=float, default=0.005, help="seconds serve-nntp takes to answer a STAT"
    )
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--rounds", type=int, default=5, help="sweeps, each finding all due again")


def run(args: argparse.Namespace) -> int:
    from bench.health import run_bench

    if args.connections < 1 or args.articles < 1000 or args.lag < 0:
        print("bench-health: --connections >= 1, --articles >= 1000, --lag >= 0", file=sys.stderr)
        return 2
    figures = run_bench(args.articles, args.connections, args.lines_per_second, args.lag, args.seed)
    print(figures.text())
    return 0
