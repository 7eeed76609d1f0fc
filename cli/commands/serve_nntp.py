"""`usenet-indexer serve-nntp CORPUS`: serve a corpus over NNTP (tests, demo, benchmarks)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "serve-nntp",
        run,
        help="serve a corpus over NNTP: overview (plain and compressed), articles, faults",
        description="A small news server in front of a stored corpus: GROUP, LIST ACTIVE, "
        "OVER/XOVER with XFEATURE COMPRESS GZIP, XZVER and COMPRESS DEFLATE, STAT/HEAD/BODY "
        "with generated yEnc bodies; optional pacing, AUTHINFO and fault injection.",
    )
    p.add_argument("corpus", help="corpus root: a folder or an fsspec URL")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=1119, help="0 picks a free port")
    p.add_argument("--user", help="require AUTHINFO USER with this name")
    p.add_argument("--password", help="... and this password")
    p.add_argument(
        "--lines-per-second",
        type=float,
        default=0.0,
        help="pace each connection like a provider (~25000); 0: no pacing",
    )
    p.add_argument(
        "--offer",
        default="xfeature,xzver,deflate",
        help="compressed variants to offer (comma list; empty: plain only)",
    )
    p.add_argument(
        "--gzip-flavour",
        choices=["raw", "zlib"],
        default="raw",
        help="XFEATURE COMPRESS GZIP stream: raw deflate or zlib",
    )
    p.add_argument(
        "--overview-lag",
        type=int,
        default=0,
        help="the newest articles whose overview is not there yet",
    )
    p.add_argument(
        "--faults",
        default="",
        help="cut=N,drop=N,dot,slow=SECONDS,idle=SECONDS (see docs/CAPTURE.md); on article "
        "commands adrop=N,astall=N,agarble=N,alag=SECONDS (see docs/HEALTH.md)",
    )
    p.add_argument(
        "--gone",
        metavar="FILE",
        help="articles taken down: a Parquet file with a message_id column, or text, one "
        "message-id a line; STAT/HEAD/BODY/ARTICLE answer 430 for them, XOVER still lists them",
    )
    p.add_argument("--tls-cert", help="PEM certificate (with --tls-key): offer STARTTLS")
    p.add_argument("--tls-key", help="PEM private key")
    p.add_argument("--implicit-tls", action="store_true", help="TLS from the first byte")
    p.add_argument("--cache-mb", type=int, default=512, help="memory for built replies")
    p.add_argument(
        "--grow",
        type=float,
        default=0.0,
        metavar="RATE",
        help="a group being posted to: articles become visible at RATE a second per group "
        "and the high mark moves (default: all visible at once)",
    )
    p.add_argument(
        "--grow-from",
        type=int,
        default=0,
        metavar="N",
        help="with --grow, the articles (from each group's low mark) visible at the start",
    )
    p.add_argument(
        "--prebuild",
        choices=["plain", "xfeature", "xzver", "deflate"],
        help="build every stored chunk's reply in this variant before listening",
    )


def run(args: argparse.Namespace) -> int:
    import ssl

    from pipelines.nntpserver.faults import Faults
    from pipelines.nntpserver.gone import load_gone
    from pipelines.nntpserver.server import NNTPServer, ServerOptions

    try:
        faults = Faults.parse(args.faults)
    except ValueError as exc:
        print(f"serve-nntp: {exc}", file=sys.stderr)
        return 2
    gone: frozenset[str] = frozenset()
    if args.gone:
        try:
            gone = load_gone(args.gone)
        except (OSError, ValueError) as exc:
            print(f"serve-nntp: --gone {args.gone}: {exc}", file=sys.stderr)
            return 2
    context = None
    if args.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls_cert, args.tls_key)
    options = ServerOptions(
        user=args.user,
        password=args.password,
        lines_per_second=args.lines_per_second,
        offer=tuple(x for x in args.offer.split(",") if x),
        gzip_flavour=args.gzip_flavour,
        overview_lag=args.overview_lag,
        faults=faults,
        tls_context=context,
        implicit_tls=args.implicit_tls,
        cache_bytes=args.cache_mb << 20,
        grow_rate=args.grow,
        grow_from=args.grow_from,
        gone=gone,
    )
    if args.grow < 0 or args.grow_from < 0:
        print("serve-nntp: --grow and --grow-from cannot be negative", file=sys.stderr)
        return 2
    try:
        server = NNTPServer(args.corpus, args.host, args.port, options)
    except FileNotFoundError as exc:
        print(f"serve-nntp: {exc}", file=sys.stderr)
        return 2
    if args.prebuild:
        built = server.replies.prebuild(args.prebuild)
        print(f"serve-nntp: built {built} {args.prebuild} replies", file=sys.stderr, flush=True)
    groups = ", ".join(sorted(server.corpus.groups)) or "none"
    server.start()
    if gone:
        print(f"serve-nntp: {len(gone):,} articles gone", file=sys.stderr, flush=True)
    print(f"serve-nntp: listening on {args.host}:{server.port}; groups: {groups}", flush=True)
    try:
        import threading

        threading.Event().wait()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    from cli.commands import run_alone

    sys.exit(run_alone(add_parser))
