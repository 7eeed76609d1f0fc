"""`usenet-indexer health`: the health sweep over a catalog's due releases (issue 20).

STATs a sample of each due release's segments (the first, the last, a few between) on the
news server and stores a verdict per release: healthy, broken (some articles gone, par2
may repair it) or dead. Resumable: a second run checks only what is still due. Shows a
live count and ends with a summary of the verdicts, the releases skipped and why the pass
ended (docs/HEALTH.md).
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
        sub, "health", run, help="check that releases' articles still exist (the health sweep)",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    p.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    add_server_arguments(p)
    p.add_argument("--connections", type=int, default=4, help="connections (default 4)")
    p.add_argument("--limit", type=int, help="at most this many releases this run")
    p.add_argument("--group", action="append", help="only this group (repeatable)")
    p.add_argument(
        "--stat-timeout", type=float, default=10.0, help="seconds for one STAT's reply (10)"
    )
    p.add_argument(
        "--transport-yield",
        type=int,
        default=5,
        metavar="N",
        help="transport failures in a row that end the pass (5)",
    )
    p.add_argument("--quiet", action="store_true", help="no live count")


def run(args: argparse.Namespace) -> int:
    from pipelines.health.sweep import DONE, SweepSettings, health_provider, sweep
    from pipelines.nntp.errors import AuthError

    if args.connections < 1 or (args.limit is not None and args.limit < 0):
        print("health: --connections must be at least 1, --limit not negative", file=sys.stderr)
        return 2
    if args.stat_timeout <= 0 or args.transport_yield < 1:
        print("health: --stat-timeout must be positive, --transport-yield >= 1", file=sys.stderr)
        return 2
    from cli.commands.providers import body_pools_of

    pool = body_pools_of(args, "health", lambda p: health_provider(p, args.stat_timeout))
    if pool is None:
        return 2
    settings = SweepSettings(
        stat_timeout=args.stat_timeout,
        transport_yield=args.transport_yield,
        connections=None if args.providers else args.connections,
        limit=args.limit,
        groups=tuple(args.group) if args.group else None,
    )
    live = _Live(args.quiet)
    try:
        summary = sweep(args.catalog, pool, settings, progress=live.tick)
    except AuthError as exc:
        print(f"\nhealth: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nhealth: stopped; what was stored stays, the next run goes on", file=sys.stderr)
        return 130
    finally:
        live.close()
        pool.close()
    print(summary.text())
    return 0 if summary.ended == DONE else 1


class _Live(LiveLine):
    """Releases checked, by outcome."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(quiet)
        self.counts: dict[str, int] = {}

    def tick(self, outcome: str) -> None:
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        done = sum(self.counts.values())
        parts = ", ".join(f"{n:,} {k}" for k, n in sorted(self.counts.items()))
        self.show(f"health: {done:,} releases ({parts})")


if __name__ == "__main__":
    from cli.commands import run_alone

    sys.exit(run_alone(add_parser))
