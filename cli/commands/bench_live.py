"""`usenet-indexer bench-live`: how soon a new upload answers a search under `live`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-live",
        run,
        help="measure live indexing: search freshness of new uploads and CPU",
        description="Serves a generated group with serve-nntp --grow (articles visible at "
        "--rate a second, --history of them there at the start), runs `usenet-indexer live` "
        "against it with its defaults, and searches by name for each upload once its last "
        "article is visible: prints the delay to its answer (p50, p95, max), the live "
        "process's CPU per 100 k new lines, between cycles and at start-up "
        "(docs/BENCHMARKS.md).",
    )
    p.add_argument("--articles", type=int, default=60_000, help="articles in the group")
    p.add_argument("--rate", type=float, default=200.0, help="new articles a second")
    p.add_argument("--history", type=float, default=0.3, help="share there at the start")
    p.add_argument("--interval", type=float, default=60.0, help="live's cycle (its default)")
    p.add_argument("--seed", type=int, default=3)
    # the scale bench (bench/live_scale.py): a cycle's CPU over a large synthetic catalog
    p.add_argument("--groups", type=int, help="scale bench: groups of the catalog (e.g. 200)")
    p.add_argument("--releases", type=int, default=10_000_000, help="scale bench: releases")
    p.add_argument("--catalog-dir", help="scale bench: where its catalog is built once")
    p.add_argument(
        "--mix", choices=("real", "classic"), default="real",
        help="subject shapes (classic has more obfuscated uploads)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.groups is not None:
        return _scale(args)
    from bench.live import run_bench

    if args.rate <= 0 or not 0 <= args.history < 1 or args.articles < 1000:
        print("bench-live: --rate > 0, 0 <= --history < 1, --articles >= 1000", file=sys.stderr)
        return 2
    figures = run_bench(
        args.articles, args.rate, args.history, args.interval, args.seed, mix=args.mix
    )
    print(figures.text())
    return 0


def _scale(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bench.live_scale import run_bench as scale_bench

    if args.groups < 4 or args.releases < 10 * args.groups or not args.catalog_dir:
        print("bench-live --groups: at least 4 groups, 10 releases a group, and --catalog-dir",
              file=sys.stderr)  # fmt: skip
        return 2
    figures = scale_bench(Path(args.catalog_dir), args.releases, args.groups, seed=args.seed)
    print(figures.text())
    return 0
