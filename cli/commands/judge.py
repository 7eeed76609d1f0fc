"""`usenet-indexer judge`: the junk judge over a catalog (issue 20).

Judges the releases whose facts changed since the last run (new ranges, probe, health and
merge outputs, and those a day's settling made unusable) by the rules in their order:
dead, fake, repeated, locked, unusable; stores the verdicts that changed in
`release_verdicts` and takes back those whose rule no longer matches. With `--all` every
release is judged again. A live count while it judges, a summary at the end.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli.commands import command
from cli.commands.live_line import LiveLine, until_stopped


def add_parser(sub: Any) -> None:
    p = command(
        sub, "judge", run, help="judge junk releases (dead, fake, repeated, locked, unusable)",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    p.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    p.add_argument("--all", action="store_true", help="judge every release again, not the changes")
    p.add_argument("--quiet", action="store_true", help="no live count")


def run(args: argparse.Namespace) -> int:
    from pipelines.judge.run import judge_catalog

    live = _Live(args.quiet)
    summary = until_stopped(
        live,
        lambda: judge_catalog(args.catalog, everything=args.all, progress=live.tick),
        "judge: stopped; the next run judges the same changes",
    )
    if summary is None:
        return 130
    print(summary.text())
    return 0


class _Live(LiveLine):
    """Releases judged."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(quiet)
        self.judged = 0

    def tick(self, n: int) -> None:
        self.judged += n
        self.show(f"judge: {self.judged:,} releases judged")
