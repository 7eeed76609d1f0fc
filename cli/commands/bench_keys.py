"""`usenet-indexer bench-keys`: a right key's searches while one address floods wrong keys."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-keys",
        run,
        help="benchmark the server under a wrong-key flood from one address",
        description="Starts `serve` on a catalog (a synthetic one of --releases releases "
        "when the folder holds none), times a right key's searches alone and while "
        "--attackers threads flood wrong keys from another address, and prints how the "
        "flood was answered, the log lines it cost and the guard's cost per request.",
    )
    p.add_argument("--catalog", default="var/bench-keys-catalog", help="catalog folder")
    p.add_argument("--releases", type=int, default=200_000, help="size of a new catalog")
    p.add_argument("--searches", type=int, default=300, help="right-key searches timed")
    p.add_argument("--attackers", type=int, default=4, help="threads sending wrong keys")


def run(args: argparse.Namespace) -> int:
    from bench.keys import print_report, run_bench

    print_report(run_bench(args.catalog, args.releases, args.searches, args.attackers))
    return 0
