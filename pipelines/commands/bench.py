"""`usenet-indexer bench [--lines N]`: the header pass's speed, memory and storage figures."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="benchmark the header pass on one generated range against its floors",
        description="Generates a range of N lines, indexes it whole (inflate to Parquet "
        "written) in a fresh process, and prints headers/s per core, peak RSS, bytes per "
        "header and per segment, and the floors measured on the same data.",
    )
    p.add_argument("--lines", type=int, default=2_000_000, help="lines in the range")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--chunk", type=int, default=100_000, help="lines per chunk")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pipelines.commands._allocator import use_system_allocator

    use_system_allocator()
    from pipelines.index.bench import run_bench

    if args.lines < 1000:
        print("bench: --lines must be at least 1000")
        return 2
    print(run_bench(args.lines, args.seed, args.chunk).text())
    return 0
