"""Speed of the header pass's scanning and field kernels: `python -m bench.fields`.

Generates one group's overview lines (`pipelines.generate.generate_range_lines`), cuts
them into chunks of `--chunk` lines as the corpus reader does, and times each kernel the
way `pipelines/index/parse.py` calls it, over every chunk. Prints CPU time per kernel
(the best of `--repeat` runs: the figure per core on a shared machine) in ns a line and
lines or bytes a second; this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# the indexed groups of a typical setup: the chunk's own group among its peers
GROUPS = [
    "alt.binaries.boneless",
    "alt.binaries.multimedia",
    "alt.binaries.teevee",
    "alt.binaries.movies.divx",
    "alt.binaries.hdtv.x264",
    "alt.binaries.mom",
    "alt.binaries.ath",
    "alt.binaries.etc",
    *(f"alt.binaries.group{k}" for k in range(24)),
]


def _chunks(data: bytes, first: int, last: int, lines: int) -> list[tuple[np.ndarray, int, int]]:
    """(buffer, first, last) per chunk of `lines` lines, cut at line ends."""
    buf = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buf == 10) + 1
    cuts = [0, *ends[lines - 1 :: lines].tolist()]
    if cuts[-1] != len(buf):
        cuts.append(len(buf))
    out = []
    for a, z in itertools.pairwise(cuts):
        piece = buf[a:z].copy()
        head = int(piece[: piece.tobytes().index(b"\t")].tobytes())
        out.append((piece, head, last))
    first_of = [c[1] for c in out]
    # each chunk's span runs to the article before the next chunk's first
    return [
        (piece, lo, (first_of[k + 1] - 1) if k + 1 < len(out) else last)
        for k, (piece, lo, _) in enumerate(out)
    ]


def _time(label: str, lines: int, nbytes: int, fn: Callable[[], object], repeat: int) -> float:
    fn()  # compile (or load from the cache) and warm up
    cpu = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        cpu = min(cpu, time.process_time() - c0)
    rate = f"{nbytes / cpu / 1e9:5.2f} GB/s" if nbytes else " " * 10
    print(
        f"{label:<28} {cpu * 1e3:7.1f} ms CPU  {cpu / lines * 1e9:6.1f} ns/line  "
        f"{lines / cpu / 1e6:6.2f} M lines/s  {rate}"
    )
    return cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated labels to run (prefixes)")
    args = parser.parse_args(argv)

    from kernels import fields, frontier, hashing, spans
    from kernels import scan as sc
    from kernels.grouping import file_runs
    from kernels.subject import parse_subjects
    from pipelines.generate import generate_range_lines

    data, first, last = generate_range_lines(n_lines=args.lines, seed=args.seed)
    chunks = _chunks(data, first, last, args.chunk)
    n = args.lines
    print(
        f"{n:,} lines in {len(chunks)} chunks, {len(data) / n:.0f} B a line; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    index = [sc.scan_chunk(b, lo, hi) for b, lo, hi in chunks]
    hashes = np.array([hashing.hash_bytes(g.encode()) for g in GROUPS], np.uint64)

    def col(k: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return [
            (b, ix.field_start[:, k], ix.field_end[:, k])
            for (b, _, _), ix in zip(chunks, index, strict=True)
        ]

    def field_bytes(k: int) -> int:
        return sum(int((e - s).sum()) for _, s, e in col(k))

    # the inputs of file_runs and of the message-id gather, as parse.py builds them
    runs_in = []
    mids = []
    for (b, _, _), ix in zip(chunks, index, strict=True):
        fs, fe = ix.field_start, ix.field_end
        dates, ok = fields.parse_dates(b, fs[:, sc.F_DATE], fe[:, sc.F_DATE])
        eff = frontier.advance(frontier.FrontierState(), dates, ok)
        poster = hashing.hash_spans(b, fs[:, sc.F_FROM], fe[:, sc.F_FROM])
        subj = parse_subjects(b, fs[:, sc.F_SUBJECT], fe[:, sc.F_SUBJECT])
        rows = np.flatnonzero((subj.part >= 1) & (subj.part <= subj.part_total))
        key = hashing.mix(poster[rows], subj.file_key[rows])
        nbytes = fields.parse_uint(b, fs[rows, sc.F_BYTES], fe[rows, sc.F_BYTES])
        runs_in.append((key, eff[rows], subj.part[rows], ix.number[rows], nbytes))
        mids.append((b, fs[rows, sc.F_MESSAGE_ID], fe[rows, sc.F_MESSAGE_ID]))
    dates_in = [fields.parse_dates(b, s, e) for b, s, e in col(sc.F_DATE)]

    def scan() -> None:
        for b, lo, hi in chunks:
            sc.scan_chunk(b, lo, hi)

    def each(fn: Callable[..., object], cols: Sequence[tuple[Any, ...]]) -> Callable[[], None]:
        def run() -> None:
            for c in cols:
                fn(*c)

        return run

    def xref() -> None:
        for b, s, e in col(sc.F_XREF):
            fields.xref_owner(b, s, e, hashes)

    def message_ids() -> None:
        for b, s, e in mids:
            ms, me = spans.strip_angle_brackets(b, s, e)
            spans.gather(b, ms, me)

    def runs(key: Any, date: Any, part: Any, article: Any, nbytes: Any) -> None:
        file_runs(key, date, part, article, nbytes, 3 * 3600)

    def advance() -> None:
        state = frontier.FrontierState()
        for d, ok in dates_in:
            frontier.advance(state, d, ok)

    benches: list[tuple[str, int, Callable[[], None]]] = [
        ("scan_chunk", len(data), scan),
        ("parse_dates", field_bytes(sc.F_DATE), each(fields.parse_dates, col(sc.F_DATE))),
        ("xref_owner", field_bytes(sc.F_XREF), xref),
        ("hash_spans (From)", field_bytes(sc.F_FROM), each(hashing.hash_spans, col(sc.F_FROM))),
        ("parse_uint (bytes)", field_bytes(sc.F_BYTES), each(fields.parse_uint, col(sc.F_BYTES))),
        ("strip_angle + gather (ids)", sum(int((e - s).sum()) for _, s, e in mids), message_ids),
        ("file_runs", 0, each(runs, runs_in)),
        ("frontier.advance", 0, advance),
    ]
    only = [o for o in args.only.split(",") if o]
    total = 0.0
    for label, nb, fn in benches:
        if only and not any(label.startswith(o) for o in only):
            continue
        total += _time(label, n, nb, fn, args.repeat)
    print(f"{'total':<28} {total * 1e3:7.1f} ms CPU  {total / n * 1e9:6.1f} ns/line")


if __name__ == "__main__":
    main()
