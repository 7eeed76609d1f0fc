"""`usenet-indexer bench-providers`: the article pass and the health sweep over two
providers, against one provider holding every article."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-providers",
        run,
        help="measure the article pass and health over two providers, and failover's cost",
        description="Generates a corpus with its bodies, indexes it, serves it with paced "
        "serve-nntp instances as two backbones (numbered apart, each missing half of the "
        "probed articles; one down; one dropping connections), probes and sweeps it: "
        "prints articles/s and STATs/s and the cost of an article the second provider "
        "answered after a 430 on the first (docs/BENCHMARKS.md).",
    )
    p.add_argument("--articles", type=int, default=60_000, help="articles in the corpus")
    p.add_argument("--connections", type=int, default=4, help="connections per provider")
    p.add_argument(
        "--lines-per-second", type=float, default=25_000.0,
        help="serve-nntp's pace per connection (0: unpaced)",
    )  # fmt: skip
    p.add_argument(
        "--lag", type=float, default=0.002, help="seconds a server takes per article command"
    )
    p.add_argument("--drop-every", type=int, default=20, help="the dropping provider's N")
    p.add_argument("--seed", type=int, default=3)


def run(args: argparse.Namespace) -> int:
    from bench.providers import run_bench

    if args.connections < 1 or args.articles < 1000 or args.drop_every < 2:
        print("bench-providers: --connections >= 1, --articles >= 1000, --drop-every >= 2",
              file=sys.stderr)  # fmt: skip
        return 2
    figures = run_bench(args.articles, args.connections, args.lines_per_second, args.lag,
                        args.drop_every, args.seed)  # fmt: skip
    print(figures.text())
    return 0
