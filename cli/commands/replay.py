"""`usenet-indexer replay CORPUS --catalog DIR`: index a stored corpus into the catalog."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "replay",
        run,
        help="index every complete range of a corpus into the Parquet catalog",
        description="Runs the header pass over every complete range of the chosen groups: "
        "groups in priority order, ranges in article order, the window carried from range "
        "to range. Indexes only the ranges that are due: not indexed yet, or touched by a rule "
        "change since (and the ranges after one redone, whose window changed). Then, for a group "
        "whose newest range is still being captured, the part of it stored since the last "
        "run (its tail: releases still open are shown as still being posted).",
    )
    p.add_argument("corpus", help="corpus root: a folder or an fsspec URL")
    p.add_argument("--catalog", required=True, help="catalog root: a folder or an fsspec URL")
    p.add_argument("--group", action="append", help="only this group (repeatable)")
    p.add_argument("--rules", help="rule set (JSON); default: the built-in rules")
    p.add_argument(
        "--no-tail", action="store_true", help="leave growing ranges until they are complete"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from pipelines.process import set_up_process

    set_up_process()
    from pipelines.corpus.fs import sweep_temporary
    from pipelines.index.replay import replay
    from pipelines.index.rules import Rules

    try:
        rules = Rules.load(args.rules)
        swept = sweep_temporary(args.catalog)  # what a killed run left mid-write
        if swept:
            print(f"replay: removed {len(swept)} temporary files a killed run left",
                  file=sys.stderr)  # fmt: skip
        replay(
            args.corpus,
            args.catalog,
            rules,
            args.group,
            progress=not args.quiet,
            out=sys.stdout,
            tail=not args.no_tail,
        )
    except (ValueError, FileNotFoundError) as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 2
    return 0
