"""CLI subcommands: one module each, with `add_parser(subparsers)` and a `run(args)`.

Modules import their heavy dependencies inside `run`, so `--help` stays instant.
"""

# The order here is the order `usenet-indexer --help` lists them.
COMMANDS = [
    "pipelines.commands.corpus",
    "pipelines.commands.serve",
    "pipelines.commands.nzb",
    "pipelines.commands.bench_serve",
    "pipelines.commands.generate",
    "pipelines.commands.replay",
    "pipelines.commands.bench",
    "pipelines.commands.capture",
    "pipelines.commands.serve_nntp",
    "pipelines.commands.bench_capture",
    "pipelines.commands.demo",
]
