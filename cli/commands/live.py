"""`usenet-indexer live`: capture the groups' new articles, index them and serve them, on
one machine without Dagster. One Ctrl-C stops it all."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from typing import Any

from cli.commands import command
from cli.commands.capture import add_server_arguments, providers_of


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "live",
        run,
        help="capture, index and serve groups as new articles arrive",
        description="Starts the Newznab/web server over the catalog, then every --interval "
        "seconds captures what is new (history still missing first, then the articles "
        "posted since the last pass) and indexes it: complete ranges as replay does, and "
        "the part stored of each group's growing range, whose releases still open are shown "
        "as still being posted; then, on what changed, the article pass (names of "
        "obfuscated uploads), merges, the health sweep's share and the judge, probes and "
        "health on capture's connections. One line a cycle, a summary at the end; Ctrl-C "
        "stops capture, indexing and the server.",
    )
    add_server_arguments(p)
    p.add_argument("--group", required=True, action="append", help="group to follow (repeatable)")
    p.add_argument("--corpus", required=True, help="corpus root: a folder or an fsspec URL")
    p.add_argument("--catalog", required=True, help="catalog root: a folder or an fsspec URL")
    p.add_argument("--rules", help="rule set (JSON); default: the built-in rules")
    p.add_argument("--interval", type=float, default=60.0, help="seconds between cycles (60)")
    p.add_argument("--connections", type=int, default=4, help="connections per server (4)")
    p.add_argument("--range-size", type=int, default=2_000_000)
    p.add_argument("--chunk-size", type=int, default=100_000)
    p.add_argument(
        "--headroom",
        type=int,
        default=0,
        help="articles below the server's high mark left for the next pass (0: all)",
    )
    p.add_argument(
        "--ahead", type=int, default=2, help="captured ranges not yet indexed, at most (2)"
    )
    p.add_argument("--host", default="127.0.0.1", help="the web server's address")
    p.add_argument("--port", type=int, default=8000, help="the web server's port (8000)")
    p.add_argument("--api-key", action="append", default=[], dest="api_keys", help="accepted key")
    p.add_argument(
        "--admin-key", action="append", default=[], dest="admin_keys", help="admin pages' key"
    )
    p.add_argument(
        "--public-pages", action="store_true", help="with keys, the web pages open to anyone"
    )
    p.add_argument("--no-serve", action="store_true", help="capture and index only")
    for stage, what in (("probe", "the article pass"), ("merge", "merges"),
                        ("health", "the health sweep"), ("judge", "the judge"),
                        ("spots", "spot reading (free.pt, every two minutes)"),
                        ("ids", "film and series ids on releases"),
                        ("predb", "PreDB scans")):  # fmt: skip
        p.add_argument(f"--no-{stage}", action="store_true", help=f"no {what}")
    p.add_argument(
        "--health-share",
        type=int,
        default=500,
        metavar="N",
        help="releases the health sweep checks at most a cycle (500; 0: every due one)",
    )
    p.add_argument("--cycles", type=int, help="stop after this many cycles")


def serve_command(args: argparse.Namespace) -> list[str]:
    """The `serve` the live loop runs beside itself: new partitions seen within seconds."""
    cmd = [sys.executable, "-m", "cli.main", "serve", "--catalog", args.catalog,
           "--host", args.host, "--port", str(args.port), "--refresh", "2"]  # fmt: skip
    for key in args.api_keys:
        cmd += ["--api-key", key]
    if not args.api_keys:
        cmd.append("--open")
    for key in args.admin_keys:
        cmd += ["--admin-key", key]
    cmd += ["--corpus", args.corpus] + (["--rules", args.rules] if args.rules else [])
    if args.public_pages:
        cmd.append("--public-pages")
    return cmd


def run(args: argparse.Namespace) -> int:
    from pipelines.process import set_up_process

    set_up_process()
    from pipelines.capture.planner import PlanSettings
    from pipelines.capture.prefetch import CaptureError, CaptureSettings
    from pipelines.capture.schedule import Limits
    from pipelines.index.rules import Rules
    from pipelines.index.warm import compile_apart
    from pipelines.live import Live
    from pipelines.live_stages import StageSettings
    from pipelines.nntp.errors import NNTPError

    providers = providers_of(args, "live")
    if providers is None:
        return 2
    if args.health_share < 0:
        print("live: --health-share must not be negative", file=sys.stderr)
        return 2
    stages = StageSettings(
        probe=not args.no_probe, merge=not args.no_merge, health=not args.no_health,
        judge=not args.no_judge, ids=not args.no_ids, health_share=args.health_share or None,
        spots=not args.no_spots, predb=not args.no_predb,
    )  # fmt: skip
    try:
        rules = Rules.load(args.rules)
        settings = CaptureSettings(
            plan=PlanSettings(args.range_size, args.chunk_size, headroom=args.headroom),
            limits=Limits(ahead=args.ahead),
        )
    except ValueError as exc:
        print(f"live: {exc}", file=sys.stderr)
        return 2
    if "://" not in args.catalog:
        os.makedirs(args.catalog, exist_ok=True)  # the server watches it from the start
    compile_apart(sys.stderr)  # before the server and the loop share the machine
    server = None
    if not args.no_serve:
        # its own process group: the Ctrl-C reaches this process, which stops the server;
        # and the server ends with this process, however it ends (SIGKILL too)
        server = subprocess.Popen(serve_command(args), process_group=0, preexec_fn=_end_with_parent)
        print(f"live: serving {args.catalog} on http://{args.host}:{args.port}/", flush=True)
    # a capture per backbone, each into its corpus (docs/BACKBONES.md); probes and health
    # on the first's connections
    capture, *others = _backbone_captures(args, providers, settings)
    from cli.commands.providers import live_bodies

    # capture's pools (every backbone's), and the body-only providers'
    bodies = live_bodies(args, [p for c in (capture, *others) for p in c.pools.pools])
    live = Live(capture, args.corpus, args.catalog, rules, args.interval, sys.stdout, stages,
                bodies, others)  # fmt: skip
    code = 0
    try:
        summary = live.run(args.cycles)
    except (CaptureError, NNTPError, OSError, ValueError) as exc:
        print(f"live: stopped: {exc}", file=sys.stderr)
        summary, code = live.summary, 1
    finally:
        if server is not None:
            _stop_server(server)
    print(summary.format())
    return 130 if summary.stopped == "interrupted" else code


def _backbone_captures(args: argparse.Namespace, providers: list[Any], settings: Any) -> list[Any]:
    """One capture per backbone of the header providers, in priority order, each into its
    corpus; capture stays `--ahead` before what the header pass took of each."""
    from pipelines.capture.backbones import by_backbone
    from pipelines.capture.filled import consumed_by_backbone
    from pipelines.capture.indexed import IndexedRanges
    from pipelines.capture.prefetch import Capture
    from pipelines.capture.progress import Progress
    from pipelines.corpus.backbones import UNNAMED, backbone_root, write_order
    from pipelines.corpus.fs import open_fs
    from pipelines.nntp.pool import ProviderPools

    backbones = by_backbone(providers)
    consumed = consumed_by_backbone(args.catalog, list(backbones))
    if list(backbones) != [UNNAMED]:
        fs, root = open_fs(args.corpus)
        write_order(fs, root, list(backbones))
    captures = []
    for name, members in backbones.items():
        pools = ProviderPools(members)
        labels = [f"{p.provider.label}#{i}" for i, p in enumerate(pools.slots())]
        captures.append(Capture(
            pools, backbone_root(args.corpus, name), args.group, settings,
            Progress(labels, show=False),
            consumed=IndexedRanges(args.catalog) if len(backbones) == 1 else consumed(name),
        ))  # fmt: skip
    return captures


def _end_with_parent() -> None:
    """In the server's child: a SIGTERM when the live process ends (Linux's
    PR_SET_PDEATHSIG), so a killed live leaves no server behind."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


def _stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)  # the server and its workers
            server.wait()


if __name__ == "__main__":
    from cli.commands import run_alone

    sys.exit(run_alone(add_parser))
