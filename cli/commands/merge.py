"""`usenet-indexer merge`: join what the header pass split of one upload (issue 20).

Merges each group's spans not merged yet, oldest first, once the article pass has read
them: releases a par2 set describes (by 16 KiB hash or name), the set's poster's releases
it names, and small sidecar releases, each joined into the release with the most files
as a new catalog version. Resumable (a stopped run redoes at most one span), with a live
count and a summary.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command
from cli.commands.live_line import LiveLine, until_stopped


def add_parser(sub: Any) -> None:
    p = command(
        sub, "merge", run, help="join split uploads: par2, name and sidecar merges",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    p.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    p.add_argument("--group", action="append", help="only this group (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no live count")


def run(args: argparse.Namespace) -> int:
    from pipelines.merge.run import merge_catalog

    live = _Live(args.quiet)
    summary = until_stopped(
        live,
        lambda: merge_catalog(args.catalog, groups=args.group, progress=live.tick),
        "merge: stopped; what was merged stays, the next run goes on",
    )
    if summary is None:
        return 130
    print(summary.text())
    return 0


class _Live(LiveLine):
    """Spans merged, their new releases."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(quiet)
        self.spans = self.releases = 0

    def tick(self, what: str, n: int) -> None:
        self.spans += 1
        self.releases += n
        self.show(f"merge: {self.spans:,} spans, {self.releases:,} releases read")
