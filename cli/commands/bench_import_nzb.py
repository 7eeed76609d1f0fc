"""`usenet-indexer bench-import-nzb`: NZBs imported per second and CPU per segment."""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub, "bench-import-nzb", run, help="benchmark import-nzb: NZBs/s, CPU per segment",
        description="Writes NZBs of RAR and par2 files, imports them into an empty catalog, "
        "then NZBs of the same articles (links), then the same files again (duplicates), "
        "and prints NZBs per second and CPU per segment of each run.",
    )  # fmt: skip
    p.add_argument("--nzbs", type=int, default=200, help="NZB files")
    p.add_argument("--files", type=int, default=40, help="files per NZB")
    p.add_argument("--segments", type=int, default=50, help="segments per file")


def run(args: argparse.Namespace) -> int:
    if min(args.nzbs, args.files, args.segments) < 1:
        print("bench-import-nzb: --nzbs, --files and --segments must be at least 1")
        return 2
    from bench.nzb_import import run_bench

    print(run_bench(args.nzbs, args.files, args.segments).text())
    return 0
