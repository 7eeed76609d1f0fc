"""`usenet-indexer score CORPUS_OUT CATALOG`: a catalog against a generator's truth, per family."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a catalog against a generated corpus's truth, per subject family",
        description="Reads CORPUS_OUT/truth (what `generate` wrote) and the newest version of "
        "each release in CATALOG (what `replay` wrote), and prints per subject family and "
        "overall: complete readable uploads that are exactly one release (count, share), "
        "splits, misses, contaminations, incomplete uploads as one release and names right. "
        "See docs/GENERATOR.md.",
    )
    p.add_argument("corpus_out", help="the folder `generate` wrote (holding truth/)")
    p.add_argument("catalog", help="catalog root (a folder)")
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pipelines.score.score import format_json, score_catalog

    try:
        score = score_catalog(args.corpus_out, args.catalog)
    except FileNotFoundError as exc:
        print(f"score: {exc}", file=sys.stderr)
        return 2
    print(format_json(score) if args.json else score.format())
    return 0
