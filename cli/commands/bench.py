"""`usenet-indexer bench [--lines N] [--repeat N]`: the header pass's speed, memory, storage."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench",
        run,
        help="benchmark the header pass on one generated range against its floors",
        description="Generates a range of N lines, indexes it whole (inflate to Parquet "
        "written) in a fresh process, and prints headers/s per core, peak RSS, bytes per "
        "header and per segment, and the floors measured on the same data.",
    )
    p.add_argument("--lines", type=int, default=2_000_000, help="lines in the range")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--chunk", type=int, default=100_000, help="lines per chunk")
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the pass and the floor this many times, alternately, and keep the least "
        "CPU of each (a shared machine's other load only ever adds time)",
    )

    p.add_argument(
        "--rules",
        type=int,
        default=0,
        metavar="N",
        help="index with N made-up operator rules in the catalog's rule set (docs/RULES.md)",
    )
    p.add_argument(
        "--nzedb",
        action="store_true",
        help="and nZEDb's 18 blacklist rules, all on in every group",
    )


def run(args: argparse.Namespace) -> int:
    from pipelines.process import set_up_process

    set_up_process()
    from bench.header import run_bench

    if args.lines < 1000:
        print("bench: --lines must be at least 1000")
        return 2
    if args.repeat < 1:
        print("bench: --repeat must be at least 1")
        return 2
    print(run_bench(args.lines, args.seed, args.chunk, args.repeat, args.rules, args.nzedb).text())
    return 0
