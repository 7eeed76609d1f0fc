"""`usenet-indexer corpus check ROOT`: validate a corpus and print each range's report."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    corpus = sub.add_parser("corpus", help="inspect a stored XOVER corpus")
    csub = corpus.add_subparsers(dest="corpus_command", metavar="ACTION", required=True)
    check = command(
        csub,
        "check",
        run_check,
        help="validate every range of a corpus and print the per-range report",
        description="Reads every chunk of every range (local path or fsspec URL), "
        "counts bad lines by reason, truncated and missing chunks, and exits 1 when "
        "a range is not complete or holds bad lines. A group's newest range that "
        "range.json calls incomplete, its listed chunks all there and whole, is the "
        "tail capture is still filling: reported as growing, not an error. A corpus of several "
        "backbones (docs/BACKBONES.md) is checked backbone by backbone.",
    )
    check.add_argument("root", help="corpus root: a folder or an fsspec URL")
    check.add_argument("--group", action="append", help="only this group (repeatable)")
    check.add_argument("--json", action="store_true", help="one JSON report per line")


def run_check(args: argparse.Namespace) -> int:
    from pipelines.corpus.check import check_backbones

    summaries = check_backbones(args.root, groups=args.group, as_json=args.json, out=sys.stdout)
    return 0 if all(s.clean for s in summaries.values()) else 1
