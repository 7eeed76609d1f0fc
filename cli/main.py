"""`usenet-indexer`: the command line. Thin wrappers over the stages, the server and Dagster."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from cli.commands import COMMANDS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="usenet-indexer",
        description="Header-first Usenet indexer: overview headers to releases, NZBs "
        "and a Newznab API.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
