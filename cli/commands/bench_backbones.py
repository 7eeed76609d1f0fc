"""`usenet-indexer bench-backbones`: capture with two providers, and the header pass's fill."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "bench-backbones",
        run,
        help="measure capture from two backbones and the header pass's fill by message-id",
        description="Capture: two paced serve-nntp processes, one per backbone, captured at "
        "once with --connections each, beside one alone; prints lines/s per connection. "
        "Fill: a generated group indexed from one provider holding everything and from the "
        "same articles split over two backbones; prints the header pass's CPU for each.",
    )
    p.add_argument("--connections", type=int, default=4, help="connections per provider")
    p.add_argument("--rate", type=float, default=25_000, help="lines/s per connection")
    p.add_argument(
        "--variant", default="xfeature", choices=["plain", "xfeature", "xzver", "deflate"]
    )
    p.add_argument("--chunks-each", type=int, default=4, help="chunks per connection and run")
    p.add_argument("--chunk-size", type=int, default=25_000)
    p.add_argument("--articles", type=int, default=400_000, help="the fill's generated group")
    p.add_argument("--range-size", type=int, default=200_000, help="the fill's ranges")
    p.add_argument("--fill-chunk", type=int, default=50_000, help="the fill's chunks")
    p.add_argument("--repeat", type=int, default=2, help="runs of each header pass (best)")
    p.add_argument("--skip-capture", action="store_true")
    p.add_argument("--skip-fill", action="store_true")
    p.add_argument("--work-dir", help="keep the sample corpora here between runs")


def run(args: argparse.Namespace) -> int:
    work = args.work_dir or tempfile.mkdtemp(prefix="bench-backbones-")
    try:
        if not args.skip_capture:
            _capture(args, work)
        if not args.skip_fill:
            from bench.backbones import fill_cost

            print(f"\nfill: {args.articles:,} articles, ranges of {args.range_size:,}, chunks "
                  f"of {args.fill_chunk:,}", flush=True)  # fmt: skip
            figures = fill_cost(
                f"{work}/fill", args.articles, args.range_size, args.fill_chunk, args.repeat
            )
            print(figures.text())
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _capture(args: argparse.Namespace, work: str) -> None:
    from bench.backbones import capture_two
    from bench.capture import make_corpus, start_server

    n = args.connections
    lines = int(n * args.chunks_each * args.chunk_size * 0.8)
    corpus, bounds = make_corpus(work, lines, args.chunk_size)
    extra = ["--prebuild", args.variant, "--cache-mb", "1024"]
    servers = [start_server(corpus, args.rate, extra) for _ in range(2)]
    try:
        ports = [port for _, port in servers]
        alone = capture_two(ports[:1], n, args.variant, args.chunks_each, args.chunk_size, bounds)
        both = capture_two(ports, n, args.variant, args.chunks_each, args.chunk_size, bounds)
    finally:
        for proc, _ in servers:
            proc.terminate()
            proc.wait(10)
    print(f"capture: variant {args.variant}, paced at {args.rate:,.0f} lines/s per connection, "
          f"{n} connections per provider, chunks of {args.chunk_size:,} articles")  # fmt: skip
    print("run | backbone | lines | s | lines/s | per connection | client CPU % of a core")
    for label, runs in (("one provider", alone), ("two backbones", both)):
        for one in runs:
            s = one.summary
            cpu = 100.0 * s.cpu_seconds / s.seconds if s.seconds else 0.0
            rate = s.lines_per_second
            print(f"{label} | {one.name} | {s.lines:,} | {s.seconds:.1f} | {rate:,.0f} | "
                  f"{rate / n:,.0f} | {cpu:.1f}")  # fmt: skip
