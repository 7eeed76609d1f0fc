"""`usenet-indexer probe`: the article pass over a catalog's due spans (issue 19).

Reads the few articles that name an upload (par2 index, first archive volume, 7z tail)
from a news server, or from a stored folder of bodies (`--bodies`, offline replay), names
the pending releases it can and stores what it learned; resumable (a second run fetches
nothing the first stored), with a live count and a summary.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command
from cli.commands.capture import add_server_arguments
from cli.commands.live_line import LiveLine


def add_parser(sub: Any) -> None:
    p = command(
        sub, "probe", run, help="read the articles that name uploads (the article pass)",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    p.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    add_server_arguments(p)
    p.add_argument("--connections", type=int, default=4, help="connections (default 4)")
    p.add_argument(
        "--bodies", metavar="ROOT", help="read bodies from this stored folder, not a server"
    )
    p.add_argument("--group", action="append", help="only this group (repeatable)")
    p.add_argument("--limit", type=int, help="at most this many releases this run")
    p.add_argument("--quiet", action="store_true", help="no live count")


def run(args: argparse.Namespace) -> int:
    from pipelines.nntp.errors import AuthError
    from pipelines.probe.fetch import PoolSource, StoreSource
    from pipelines.probe.run import probe_catalog

    source: Any
    pool = None
    if args.bodies:
        from pipelines.articles.store import open_bodies

        store = open_bodies(args.bodies)
        if store is None:
            print(f"probe: no stored bodies under {args.bodies}", file=sys.stderr)
            return 2
        source = StoreSource(store)
    else:
        from cli.commands.providers import body_pools_of

        pool = body_pools_of(args, "probe")
        if pool is None:
            return 2
        # a settings file: every provider's connections; the flags: --connections
        source = PoolSource(pool, None if args.providers else args.connections)
    live = _Live(args.quiet)
    try:
        summary = probe_catalog(
            args.catalog, source, groups=args.group, limit=args.limit, progress=live.tick
        )
    except AuthError as exc:
        print(f"\nprobe: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nprobe: stopped; what was stored stays, the next run goes on", file=sys.stderr)
        return 130
    finally:
        live.close()
        if pool is not None:
            pool.close()
    print(summary.text())
    return 1 if summary.gave_up else 0


class _Live(LiveLine):
    """Articles read, releases done."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(quiet)
        self.counts = {"articles": 0, "releases": 0}

    def tick(self, what: str, n: int) -> None:
        self.counts[what] = self.counts.get(what, 0) + n
        a, r = self.counts["articles"], self.counts["releases"]
        self.show(f"probe: {a:,} articles read, {r:,} releases done")
