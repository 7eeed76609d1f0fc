"""`usenet-indexer capture`: fetch groups' overview from a news server into the corpus."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "capture",
        run,
        help="fetch overview (XOVER) of groups from a news server into the corpus",
        description="Plans each group's history as ranges and chunks, fetches every missing "
        "chunk on all connections (compressed where the server allows), writes range.json "
        "once a range is complete, and with --tail keeps fetching new articles. Killed at "
        "any point, it resumes from what is stored.",
    )
    add_server_arguments(p)
    p.add_argument("--group", required=True, action="append", help="group to capture (repeatable)")
    p.add_argument("--corpus", required=True, help="corpus root: a folder or an fsspec URL")
    p.add_argument("--connections", type=int, default=4, help="connections per server (default 4)")
    p.add_argument("--ranges", type=int, default=2, help="ranges fetched at once (default 2)")
    p.add_argument(
        "--ahead",
        type=int,
        help="stop (or, with --tail, wait) once this many captured ranges of a group are not "
        "yet consumed",
    )
    p.add_argument(
        "--disk-cap", help="the same, in bytes of captured ranges of all groups (e.g. 10G)"
    )
    p.add_argument(
        "--catalog",
        help="the indexer's catalog: --ahead and --disk-cap then count the ranges stored and "
        "not indexed yet (each group's distance ahead of its index), not only this run's",
    )
    p.add_argument("--range-size", type=int, default=2_000_000)
    p.add_argument("--chunk-size", type=int, default=100_000)
    p.add_argument("--newest-first", action="store_true", help="fetch history newest first")
    p.add_argument(
        "--headroom",
        type=int,
        default=1000,
        help="articles below the server's high mark left for the next pass",
    )
    p.add_argument("--tail", action="store_true", help="after the history, follow new articles")
    p.add_argument("--interval", type=float, default=300.0, help="seconds between tail passes")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_server_arguments(p: Any) -> None:
    """The news server options `capture` and `live` share."""
    p.add_argument(
        "--providers",
        metavar="FILE",
        help="the providers settings file (docs/PROVIDERS.md; default $USENET_INDEXER_PROVIDERS "
        "when no --server or --provider is given)",
    )
    p.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="news server (repeat for more; they share the work and the options below)",
    )
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="SPEC",
        help="a provider with an account of its own: HOST[:PORT][,tls|starttls][,insecure]"
        "[,user=U][,password-env=VAR][,connections=N] (repeatable)",
    )
    p.add_argument("--tls", action="store_true", help="implicit TLS (default port 563)")
    p.add_argument("--starttls", action="store_true", help="upgrade a plain connection (RFC 4642)")
    p.add_argument("--insecure", action="store_true", help="do not verify the TLS certificate")
    p.add_argument("--user", help="AUTHINFO USER")
    p.add_argument("--password-env", metavar="VAR", help="environment variable with the password")
    p.add_argument(
        "--compression", default="auto", choices=["auto", "plain", "xfeature", "xzver", "deflate"]
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds without a byte")
    p.add_argument(
        "--idle-close", type=float, default=60.0, help="close connections idle this long"
    )


def providers_of(args: argparse.Namespace, command: str) -> list[Any] | None:
    """The providers the server options name (of a settings file, those for headers);
    None (the problem printed) when they cannot."""
    from cli.commands.providers import provider_set_of

    providers = provider_set_of(args, command)
    if providers is None or not providers.source:
        return None if providers is None else list(providers)
    if not providers.for_headers():
        print(f"{command}: {providers.source} has no provider for headers", file=sys.stderr)
        return None
    return providers.for_headers()


def _flag_providers(args: argparse.Namespace, command: str) -> list[Any] | None:
    """The providers of the one-server flags (`--server`, `--provider`)."""
    from pipelines.nntp.provider import Provider, parse_provider, parse_server

    password = None
    if args.password_env:
        password = os.environ.get(args.password_env)
        if password is None:
            print(f"{command}: ${args.password_env} is not set", file=sys.stderr)
            return None
    if not args.server and not args.provider:
        print(f"{command}: give at least one --server or --provider", file=sys.stderr)
        return None
    try:
        common = {"timeout": args.timeout, "idle_close": args.idle_close}
        providers = [
            parse_provider(spec, dict(os.environ), compression=args.compression, **common)
            for spec in args.provider
        ]
        for spec in args.server:
            host, port = parse_server(spec, tls=args.tls)
            providers.append(
                Provider(
                    host,
                    port,
                    tls="implicit" if args.tls else "starttls" if args.starttls else "none",
                    user=args.user,
                    password=password,
                    connections=args.connections,
                    timeout=args.timeout,
                    idle_close=args.idle_close,
                    compression=args.compression,
                    tls_verify=not args.insecure,
                )
            )
    except ValueError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return None
    return providers


def run(args: argparse.Namespace) -> int:
    from pipelines.capture.backbones import BackboneCapture, by_backbone
    from pipelines.capture.planner import PlanSettings
    from pipelines.capture.prefetch import CaptureSettings
    from pipelines.capture.progress import Progress
    from pipelines.capture.schedule import Limits, parse_size

    providers = providers_of(args, "capture")
    if providers is None:
        return 2
    alone = len(by_backbone(providers)) == 1  # one bar; several backbones print summaries
    try:
        settings = CaptureSettings(
            plan=PlanSettings(args.range_size, args.chunk_size, args.newest_first, args.headroom),
            limits=Limits(
                ranges_open=args.ranges,
                ahead=args.ahead,
                disk_cap=parse_size(args.disk_cap) if args.disk_cap else None,
            ),
        )
    except ValueError as exc:
        print(f"capture: {exc}", file=sys.stderr)
        return 2
    try:
        capture = BackboneCapture(
            providers,
            args.corpus,
            args.group,
            settings,
            progress=lambda name, labels: Progress(labels, show=not args.quiet and alone),
            consumed=consumed_of(args.catalog, providers),
        )
    except ValueError as exc:
        print(f"capture: {exc}", file=sys.stderr)
        return 2
    runs = capture.run(tail=args.tail, interval=args.interval)
    return report_runs(runs)


def consumed_of(catalog: str | None, providers: list[Any]) -> Any:
    """Each backbone's `consumed` callback: what the catalog's header pass has taken."""
    if not catalog:
        return None
    from pipelines.capture.backbones import by_backbone
    from pipelines.capture.filled import consumed_by_backbone

    return consumed_by_backbone(catalog, list(by_backbone(providers)))


def report_runs(runs: list[Any]) -> int:
    """Each backbone's summary (its error named); the exit status of them all: 1 when
    one stopped on an error (the others went on), 130 when interrupted, else 0."""
    if len(runs) == 1:  # one backbone: the summary as it always was
        (one,) = runs
        if one.error:
            print(one.summary.format(), file=sys.stderr)
            print(f"capture: stopped: {one.error}", file=sys.stderr)
            return 1
        print(one.summary.format())
        return 130 if one.summary.stopped == "interrupted" else 0
    for one in runs:
        print(one.format(), file=sys.stderr if one.error else sys.stdout)
    failed = [one.name for one in runs if one.error]
    if failed:
        print(f"capture: backbones stopped by an error: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 130 if any(one.summary.stopped == "interrupted" for one in runs) else 0


if __name__ == "__main__":
    from cli.commands import run_alone

    sys.exit(run_alone(add_parser))
