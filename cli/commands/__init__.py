"""CLI subcommands: one module each, with `add_parser(subparsers)` and a `run(args)`.

Modules import their heavy dependencies inside `run`, so `--help` stays instant.
"""

# The order here is the order `usenet-indexer --help` lists them.
COMMANDS = [
    "cli.commands.corpus",
    "cli.commands.serve",
    "cli.commands.nzb",
    "cli.commands.bench_serve",
    "cli.commands.generate",
    "cli.commands.replay",
    "cli.commands.bench",
    "cli.commands.capture",
    "cli.commands.serve_nntp",
    "cli.commands.bench_capture",
    "cli.commands.demo",
]
