"""`usenet-indexer providers check`: connect to each provider of the settings file and
report its greeting, compression, retention per group, speed, and which providers share a
backbone (docs/PROVIDERS.md).

Also the one place the news server options become a set of providers: the settings file
(`--providers FILE` or `$USENET_INDEXER_PROVIDERS`), else the one-server flags.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any


def provider_set_of(args: argparse.Namespace, command: str) -> Any:
    """The `ProviderSet` the server options name: the settings file when one is given
    (`--providers`, or the environment's when no server flag is), else the flags' set of
    one or more. None, the problem printed, when they name none that can be used."""
    from cli.commands.capture import _flag_providers
    from pipelines.nntp.providers import PROVIDERS_ENV, ProvidersError, ProviderSet, load_providers

    path = getattr(args, "providers", None)
    flags = bool(getattr(args, "server", None) or getattr(args, "provider", None))
    if path and flags:
        print(f"{command}: give --providers or the server flags, not both", file=sys.stderr)
        return None
    if not path and not flags:
        path = os.environ.get(PROVIDERS_ENV) or None
    if path:
        try:
            return load_providers(path, os.environ)
        except ProvidersError as exc:
            print(f"{command}: {exc}", file=sys.stderr)
            return None
    providers = _flag_providers(args, command)
    if providers is None:
        return None
    try:
        return ProviderSet.of(providers)
    except ProvidersError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return None


def body_pools_of(
    args: argparse.Namespace, command: str, adapt: Callable[[Any], Any] | None = None
) -> Any:
    """The `BodyPools` of the body providers the server options name (each adapted by
    `adapt`), their rests stored in `args.catalog` for the status page; None, the
    problem printed, when there are none."""
    from pipelines.providers.failover import open_body_pools
    from pipelines.providers.resting import Resting
    from pipelines.providers.status import rest_recorder

    providers = provider_set_of(args, command)
    if providers is None:
        return None
    bodies = providers.for_bodies()
    if not bodies:
        print(f"{command}: no provider for bodies (role bodies or both)", file=sys.stderr)
        return None
    catalog = getattr(args, "catalog", None)
    resting = Resting(record=rest_recorder(catalog)) if catalog else None
    return open_body_pools(bodies, resting, adapt)


def live_bodies(args: argparse.Namespace, capture_pools: list[Any]) -> Any:
    """The body providers' pools for `live`: capture's pool where the provider is the
    same account (one pool per account: its connection limit holds across the stages),
    a pool of its own for a provider of bodies only; rests stored in the catalog."""
    from pipelines.nntp.pool import ConnectionPool
    from pipelines.providers.failover import BodyPools
    from pipelines.providers.resting import Resting
    from pipelines.providers.status import rest_recorder

    providers = provider_set_of(args, "live")
    shared = {p.provider.label: p for p in capture_pools}
    bodies = providers.for_bodies() if providers is not None else []
    pools = [shared.get(p.label) or ConnectionPool(p) for p in bodies] or capture_pools[:1]
    return BodyPools(
        pools=pools,
        owned=[p for p in pools if p not in capture_pools],
        resting=Resting(record=rest_recorder(args.catalog)),
    )


def add_parser(sub: Any) -> None:
    from cli.commands import command
    from cli.commands.capture import add_server_arguments

    p = command(
        sub, "providers", _action, help="the news providers: check them",
        description="Subcommands over the providers settings file (docs/PROVIDERS.md).",
    )  # fmt: skip
    actions = p.add_subparsers(dest="action", required=True)
    c = actions.add_parser(
        "check",
        help="greeting, compression, retention, speed, and which providers share a backbone",
        description=(__doc__ or "").split("\n\n")[0].replace("\n", " "),
    )
    add_server_arguments(c)
    c.add_argument("--connections", type=int, default=1, help=argparse.SUPPRESS)
    c.add_argument("--group", action="append", required=True, help="a group to check (repeatable)")
    c.add_argument("--catalog", help="store the report here for the status page")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c.set_defaults(providers_run=run_check)


def _action(args: argparse.Namespace) -> int:
    return int(args.providers_run(args))


def run_check(args: argparse.Namespace) -> int:
    import json

    from pipelines.providers.report import check_all, report_text

    providers = provider_set_of(args, "providers check")
    if providers is None:
        return 2
    report = check_all(list(providers), args.group)
    if args.catalog:
        from pipelines.providers.status import write_check

        write_check(args.catalog, report)
    print(json.dumps(report, indent=1) if args.json else report_text(report))
    return 0 if all(p["state"] == "ok" for p in report["providers"]) else 1


if __name__ == "__main__":
    from cli.commands import run_alone

    sys.exit(run_alone(add_parser))
