"""`usenet-indexer spots`: read a Spotnet spot group into the catalog (issue 28).

Reads the group's overview after the last article read (the first time, the last
`--backfill` articles), verifies every spot's signatures (Spotnet's keys 2-4, a
spotter's own key 7 with its hashcash), counts bad, unsigned and tampered spots by
reason, stores the valid ones write-once with moderators' and spotters' deletes, and
imports each spot's NZB: linked to the release the header pass built of its articles, or
a release of its own once the spot is a day old without one. Resumable, with a live count
and a summary.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command
from cli.commands.capture import add_server_arguments, providers_of
from cli.commands.live_line import LiveLine


def add_parser(sub: Any) -> None:
    p = command(
        sub, "spots", run, help="read Spotnet spots (free.pt): verify, store, import their NZBs",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    add_server_arguments(p)
    p.set_defaults(connections=1)
    p.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    p.add_argument("--group", default="free.pt", help="the spot group (default free.pt)")
    p.add_argument("--backfill", type=int, default=20_000, help="articles read the first time")
    p.add_argument(
        "--standalone-after-hours", type=float, default=24.0,
        help="a spot whose upload the catalog lacks this long becomes a release of its own",
    )  # fmt: skip
    p.add_argument("--now", type=int, help="the clock, in epoch seconds (tests; default: now)")
    p.add_argument("--quiet", action="store_true", help="no live count")


def run(args: argparse.Namespace) -> int:
    providers = providers_of(args, "spots")
    if providers is None:
        return 2
    from pipelines.spots.reader import SpotSummary, read_spots

    line = LiveLine(args.quiet)

    def tick(s: SpotSummary) -> None:
        line.show(f"spots: article {s.last:,}, {s.spots:,} spots, {sum(s.rejected.values()):,} "
                  "rejected")  # fmt: skip

    try:
        summary = read_spots(
            args.catalog, providers[0], group=args.group, backfill=args.backfill, now=args.now,
            standalone_after=int(args.standalone_after_hours * 3600), progress=tick,
        )  # fmt: skip
    except KeyboardInterrupt:
        print("\nspots: stopped; what was read stays, the next run goes on", file=sys.stderr)
        return 130
    finally:
        line.close()
    print(summary.text())
    return 1 if summary.stopped else 0
