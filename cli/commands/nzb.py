"""`usenet-indexer nzb --catalog DIR --out DIR [--key HEX]`: write NZB files from a catalog."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "nzb",
        run,
        help="write one NZB per catalog release (or the one asked for)",
        description="Writes <release_key hex>.nzb for the newest version of every release in "
        "the catalog (pending releases are not in it), or only --key. Each NZB merges the "
        "release's files from all its versions and validates against the NZB 1.1 DTD.",
    )
    p.add_argument("--catalog", required=True, help="catalog root: folder or fsspec URL")
    p.add_argument("--out", required=True, help="output folder (or fsspec URL)")
    p.add_argument("--key", action="append", help="only this release key, 40 hex (repeatable)")


def run(args: argparse.Namespace) -> int:
    from pipelines.nzb.export import CatalogUnreadable, export_nzbs

    try:
        keys = [bytes.fromhex(k) for k in args.key or []]
    except ValueError:
        print("nzb: --key must be 40 hex digits", file=sys.stderr)
        return 2
    if any(len(k) != 20 for k in keys):
        print("nzb: --key must be 40 hex digits", file=sys.stderr)
        return 2
    try:
        summary = export_nzbs(args.catalog, args.out, keys or None)
    except CatalogUnreadable as exc:
        print(f"nzb: {exc}", file=sys.stderr)
        return 1
    print(
        f"nzb: wrote {summary.written} NZB files ({summary.bytes:,} bytes, "
        f"{summary.segments:,} segments) in {summary.seconds:.1f} s"
        + (f"; not found: {', '.join(summary.missing)}" if summary.missing else "")
    )
    for problem in summary.unreadable:
        print(f"nzb: unreadable partition {problem}", file=sys.stderr)
    if summary.skipped:
        print(
            f"nzb: {summary.skipped} releases not written: files of theirs may be in the "
            "unreadable partitions (redo those ranges, then export again)",
            file=sys.stderr,
        )
    return 1 if summary.missing or summary.unreadable else 0
