"""`python -m bench.generate`: how fast the generator makes overview lines.

Times `generate_range_lines` (plan, number, render; no compression, no disk) and prints
lines per second. The CLI's own summary line gives the end-to-end figure with
compression, truth and disk writes.
"""

from __future__ import annotations

import argparse
import time

from pipelines.generate.corpus import generate_range_lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.generate")
    parser.add_argument("--lines", type=int, default=2_000_000, help="lines to make")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="runs; the best one is shown")
    args = parser.parse_args(argv)
    best, best_cpu = float("inf"), float("inf")
    size = 0
    for _ in range(args.repeat):
        started, cpu = time.perf_counter(), time.process_time()
        data, _, _ = generate_range_lines(args.lines, seed=args.seed)
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        size = len(data)
        del data
    # CPU seconds too: on a shared machine the wall clock also counts other people's work
    print(
        f"generate_range_lines: {args.lines:,} lines, {size / 1e6:,.0f} MB "
        f"({size / args.lines:.0f} B a line) in {best:.2f} s ({best_cpu:.2f} CPU-s): "
        f"{args.lines / best:,.0f} lines/s, {args.lines / best_cpu:,.0f} lines per CPU-s"
    )


if __name__ == "__main__":
    main()
