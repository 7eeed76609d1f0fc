"""`usenet-indexer import-nzb`: NZB files become catalog releases (issue 28).

Reads each NZB named (files, folders walked for `.nzb` and `.nzb.gz`), makes it a
release as the header pass would from its subjects, and writes it to the catalog where
every reader finds it; an NZB whose articles a release already holds links to it and adds
nothing. Each NZB's provenance and outcome (inserted, linked, duplicate, empty,
malformed) is logged under `_imports/log`; a second run over the same files adds nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command
from cli.commands.live_line import LiveLine, until_stopped


def add_parser(sub: Any) -> None:
    p = command(
        sub, "import-nzb", run, help="import NZB files (files, folders, .nzb.gz) as releases",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    p.add_argument("paths", nargs="+", metavar="PATH", help="an NZB file or a folder of them")
    p.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    p.add_argument("--quiet", action="store_true", help="no live count")


def run(args: argparse.Namespace) -> int:
    from pipelines.nzbimport.run import ImportSummary, import_paths

    line = LiveLine(args.quiet)

    def tick(s: ImportSummary) -> None:
        if s.nzbs % 50 == 0:
            line.show(f"import-nzb: {s.nzbs:,} NZBs, {s.outcomes['inserted']:,} inserted")

    summary = until_stopped(
        line,
        lambda: import_paths(args.paths, args.catalog, progress=tick),
        "import-nzb: stopped; logged batches stay, the next run goes on",
    )
    if summary is None:
        return 130
    print(summary.text())
    return 0
