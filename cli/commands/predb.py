"""`usenet-indexer predb`: the PreDB (issue 27, docs/PREDB.md).

`import` reads nZEDb's daily dumps, JSON lines and CSV files (or folders of them) into
the catalog's PreDB, idempotently; `scan` runs the seed's scan schedule once over what
is new in the catalog (resumable, a live count and a summary); `listen` follows a pre
channel on IRC (NEW:/UPD:/NUK:/UNNUK: announces), reconnecting on its own.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command
from cli.commands.live_line import LiveLine, until_stopped


def add_parser(sub: Any) -> None:
    p = command(
        sub, "predb", _help, help="the PreDB: import pres, scan for them, listen on IRC",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    imp = verbs.add_parser("import", help="import pres from dump, JSON-lines or CSV files")
    imp.add_argument("paths", nargs="+", metavar="FILE|DIR")
    imp.add_argument("--catalog", required=True, help="the catalog: a folder")
    imp.add_argument("--quiet", action="store_true", help="no live count")
    imp.set_defaults(run=run_import)
    scan = verbs.add_parser("scan", help="one cycle of the scan schedule")
    scan.add_argument("--catalog", required=True, help="the catalog: a folder")
    scan.add_argument("--quiet", action="store_true", help="no live count")
    scan.set_defaults(run=run_scan)
    listen = verbs.add_parser("listen", help="follow a pre channel on IRC")
    listen.add_argument("--irc", required=True, metavar="HOST[:PORT]", help="the IRC server")
    listen.add_argument("--channel", required=True, help="the channel announces come on")
    listen.add_argument("--catalog", required=True, help="the catalog: a folder")
    listen.add_argument("--nick", default="uipredb", help="the nick to take (a suffix when taken)")
    listen.add_argument(
        "--seconds", type=float, default=0.0, help="stop after this long (0: never)"
    )
    listen.set_defaults(run=run_listen)


def _help(args: argparse.Namespace) -> int:
    print("usenet-indexer predb: give a verb: import, scan or listen (--help)", file=sys.stderr)
    return 2


def run_import(args: argparse.Namespace) -> int:
    from pipelines.predb.importer import ImportSummary, import_files

    live = LiveLine(args.quiet)

    def tick(s: ImportSummary) -> None:
        live.show(f"predb import: {s.lines:,} lines, {s.pres:,} new pres")

    try:
        summary = until_stopped(
            live,
            lambda: import_files(args.catalog, args.paths, progress=tick),
            "predb import: stopped; batches written stay, the next import skips them",
        )
    except FileNotFoundError as exc:
        print(f"predb import: no such file: {exc.filename}", file=sys.stderr)
        return 2
    if summary is None:
        return 130
    print(summary.text())
    return 0


def run_scan(args: argparse.Namespace) -> int:
    from pipelines.predb.scan import scan_catalog

    live = LiveLine(args.quiet)
    summary = until_stopped(
        live,
        lambda: scan_catalog(
            args.catalog, progress=lambda what, n: live.show(f"predb scan: {what} {n:,}")
        ),
        "predb scan: stopped; claimed scans are given back by the reaper",
    )
    if summary is None:
        return 130
    print(summary.text())
    return 0


def run_listen(args: argparse.Namespace) -> int:
    from pipelines.predb.listen import listen

    host, _, port = args.irc.partition(":")
    try:
        summary = listen(args.catalog, host, int(port or 6667), args.channel, nick=args.nick,
                         seconds=args.seconds or None)  # fmt: skip
    except KeyboardInterrupt:
        print("\npredb listen: stopped", file=sys.stderr)
        return 130
    print(summary.text())
    return 0
