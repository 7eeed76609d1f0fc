"""`usenet-indexer bench-probe`: the article pass's speed and probes per release."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-probe",
        run,
        help="measure the article pass: articles/s per connection, CPU, probes per release",
        description="Generates a corpus with its article bodies (the real mix), indexes it, "
        "serves it with serve-nntp paced like a provider, and probes it: prints articles "
        "fetched a second per connection, CPU per fetched article, probes per release, the "
        "share named under the truth's name, and what a second run fetched "
        "(docs/BENCHMARKS.md).",
    )
    p.add_argument("--articles", type=int, default=60_000, help="articles in the corpus")
    p.add_argument("--connections", type=int, default=4)
    p.add_argument(
        "--lines-per-second", type=float, default=25_000.0,
        help="serve-nntp's pace per connection (0: unpaced)",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=3)


def run(args: argparse.Namespace) -> int:
    from bench.probe import run_bench

    if args.connections < 1 or args.articles < 1000:
        print("bench-probe: --connections >= 1, --articles >= 1000", file=sys.stderr)
        return 2
    figures = run_bench(args.articles, args.connections, args.lines_per_second, args.seed)
    print(figures.text())
    return 0
