"""`usenet-indexer bench-capture`: capture throughput per connection count, and client CPU."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-capture",
        run,
        help="measure capture throughput against a paced serve-nntp (1..N connections)",
        description="Starts serve-nntp in its own process, paced like a provider, and "
        "captures the same number of chunks per connection with each connection count; "
        "prints lines/s, the "
        "scaling against one connection, and the client's CPU per 100 k lines/s.",
    )
    p.add_argument("--connections", default="1,2,5,10,20", help="comma list (default 1,2,5,10,20)")
    p.add_argument("--rate", type=float, default=25_000, help="lines/s per connection")
    p.add_argument(
        "--variant", default="xfeature", choices=["plain", "xfeature", "xzver", "deflate"]
    )
    p.add_argument("--chunks-each", type=int, default=4, help="chunks per connection and run")
    p.add_argument("--chunk-size", type=int, default=25_000)
    p.add_argument(
        "--lines",
        type=int,
        default=0,
        help="sample corpus size (default: enough for the largest run)",
    )
    p.add_argument("--work-dir", help="keep the sample corpus here between runs")


def run(args: argparse.Namespace) -> int:
    from bench.capture import make_corpus, run_once, start_server

    counts = [int(x) for x in args.connections.split(",") if x]
    # generated groups have gaps: ~0.7 lines per article number
    lines = args.lines or int(max(counts) * args.chunks_each * args.chunk_size * 0.8)
    work = args.work_dir or tempfile.mkdtemp(prefix="bench-capture-")
    print(f"bench-capture: sample corpus of {lines:,} lines in {work}", flush=True)
    corpus, bounds = make_corpus(work, lines, args.chunk_size)
    # the server builds every reply first, as a provider answers from its own storage
    server, port = start_server(
        corpus, args.rate, ["--prebuild", args.variant, "--cache-mb", "2048"]
    )
    runs = []
    try:
        for n in counts:
            runs.append(run_once(port, n, args.variant, args.chunks_each, args.chunk_size, bounds))
            s = runs[-1].summary
            print(f"  {n:>2} connections: {s.lines:,} lines in {s.seconds:.1f} s", flush=True)
    finally:
        server.terminate()
        server.wait(10)
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    one = runs[0].summary.lines_per_second / max(runs[0].connections, 1)
    print(f"\nvariant {args.variant}, paced at {args.rate:,.0f} lines/s per connection, "
          f"chunks of {args.chunk_size:,} articles, {args.chunks_each} per connection")  # fmt: skip
    print("connections | lines/s | per connection | x (N x one) | MB/s | client CPU % of a core "
          "| CPU % per 100k lines/s")  # fmt: skip
    for r in runs:
        s = r.summary
        scale = s.lines_per_second / (r.connections * one) if one else 0.0
        cpu = 100.0 * s.cpu_seconds / s.seconds if s.seconds else 0.0
        print(f"{r.connections:>11} | {s.lines_per_second:>7,.0f} | "
              f"{s.lines_per_second / r.connections:>14,.0f} | {scale:>11.2f} | "
              f"{s.megabytes_per_second:>4.1f} | {cpu:>22.1f} | "
              f"{r.cpu_per_100k:>6.1f}")  # fmt: skip
    return 0
