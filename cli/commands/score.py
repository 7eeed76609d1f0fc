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
    p.add_argument(
        "more",
        nargs="*",
        metavar="CORPUS_OUT CATALOG",
        help="more pairs (other seeds): their counts are added up",
    )
    p.add_argument(
        "--by-style",
        action="store_true",
        help="split each family by subject shape (family:style; classic stays one row)",
    )
    p.add_argument(
        "--by-family",
        action="store_true",
        help="the obfuscated uploads' naming and passwords per family as well (an obfuscating "
        "tool's family of a --tool-obfuscation truth, per_file, obfuscated)",
    )
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pipelines.score.score import combine, format_json, score_catalog

    if len(args.more) % 2:
        print("score: give a CATALOG after each CORPUS_OUT", file=sys.stderr)
        return 2
    pairs = [(args.corpus_out, args.catalog), *zip(args.more[::2], args.more[1::2], strict=True)]
    try:
        scores = [
            score_catalog(out, catalog, args.by_style, args.by_family) for out, catalog in pairs
        ]
    except FileNotFoundError as exc:
        print(f"score: {exc}", file=sys.stderr)
        return 2
    score = scores[0] if len(scores) == 1 else combine(scores)
    print(format_json(score) if args.json else score.format())
    return 0
