"""`usenet-indexer bench-spots [--spots N]`: spots read and verified per second on one
connection, and the CPU per spot."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub, "bench-spots", run, help="benchmark the spot reader: spots/s, CPU per spot",
        description="Generates a signed spot feed with its NZBs, serves it with serve-nntp "
        "in a process of its own, reads it with the spot reader on one connection, and "
        "prints spots per second and the reader's CPU per spot (RSA verify included).",
    )  # fmt: skip
    p.add_argument("--spots", type=int, default=300, help="spots to generate")


def run(args: argparse.Namespace) -> int:
    if args.spots < 1:
        print("bench-spots: --spots must be at least 1")
        return 2
    from bench.spots import run_bench

    print(run_bench(args.spots).text())
    return 0
