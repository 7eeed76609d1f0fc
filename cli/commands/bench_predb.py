"""`usenet-indexer bench-predb`: the PreDB's import and scan cycle, timed."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub, "bench-predb", run, help="benchmark the PreDB: a large import, a scan cycle",
        description="Imports a synthetic nZEDb dump of --pres lines (time, CPU, peak RSS, "
        "then the same file again); times scan cycles over a synthetic catalog of "
        "--releases releases with --waiting live pres waiting; and counts, over --seeds "
        "generated corpora with pres, each kind of posting's pres complete under their "
        "upload, wrong links, nukes shown, the unposted and mismatched ended; and the "
        "scan cycle's CPU against the header pass's on the same corpora.",
    )  # fmt: skip
    p.add_argument("--pres", type=int, default=10_000_000, help="lines in the dump (10 M)")
    p.add_argument("--releases", type=int, default=10_000_000, help="releases in the catalog")
    p.add_argument("--waiting", type=int, default=100_000, help="live pres waiting")
    p.add_argument("--seeds", type=int, default=3, help="generated corpora for the shares")
    p.add_argument("--articles", type=int, default=200_000, help="articles a group in each")
    p.add_argument(
        "--only", choices=["import", "scan", "shares", "pass"], help="one of the benches"
    )
    p.add_argument("--dir", metavar="DIR", help="work here and keep what was written")


def run(args: argparse.Namespace) -> int:
    from bench.predb import import_bench, pass_bench, scan_bench, shares_bench

    if args.only in (None, "import"):
        import_bench(args.pres, args.dir, emit=lambda line: print(line, flush=True))
    if args.only in (None, "scan"):
        print("\n".join(scan_bench(args.releases, args.waiting, args.dir)), flush=True)
    if args.only in (None, "shares"):
        print("\n".join(shares_bench(args.seeds, args.articles, args.dir)), flush=True)
    if args.only in (None, "pass"):
        print("\n".join(pass_bench(args.seeds, args.articles, args.dir)), flush=True)
    return 0
