"""CLI subcommands: one module each, with `add_parser(subparsers)` and a `run(args)`.

Modules import their heavy dependencies inside `run`, so `--help` stays instant.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

# The order here is the order `usenet-indexer --help` lists them.
COMMANDS = [
    "cli.commands.corpus",
    "cli.commands.serve",
    "cli.commands.nzb",
    "cli.commands.bench_serve",
    "cli.commands.generate",
    "cli.commands.replay",
    "cli.commands.bench",
    "cli.commands.score",
    "cli.commands.capture",
    "cli.commands.live",
    "cli.commands.probe",
    "cli.commands.merge",
    "cli.commands.health",
    "cli.commands.judge",
    "cli.commands.predb",
    "cli.commands.serve_nntp",
    "cli.commands.bench_capture",
    "cli.commands.bench_backbones",
    "cli.commands.bench_live",
    "cli.commands.bench_probe",
    "cli.commands.bench_probe_inspect",
    "cli.commands.bench_merge",
    "cli.commands.bench_health",
    "cli.commands.bench_judge",
    "cli.commands.bench_predb",
    "cli.commands.demo",
    "cli.commands.import_nzb",
    "cli.commands.bench_import_nzb",
    "cli.commands.spots",
    "cli.commands.bench_spots",
    "cli.commands.ids",
    "cli.commands.bench_ids",
    "cli.commands.providers",
    "cli.commands.bench_providers",
    "cli.commands.rules",
    "cli.commands.bench_keys",
]


def command(
    sub: Any, name: str, run: Callable[[argparse.Namespace], int], help: str, description: str
) -> argparse.ArgumentParser:
    """The parser of subcommand `name` (its line in the list, its --help page), set to call
    `run` with the parsed arguments."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=description)
    p.set_defaults(run=run)
    return p


def run_alone(add_parser: Callable[[Any], None], argv: Sequence[str] | None = None) -> int:
    """One command without the others (`python -m cli.commands.MODULE COMMAND ...`): what
    child processes start (serve-nntp for the capture bench, capture in the tests), as
    they need no other command's module."""
    parser = argparse.ArgumentParser(prog="usenet-indexer")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)
