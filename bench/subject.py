"""Speed of the header-pass kernels on one core: `python -m bench.subject`.

Builds a buffer of realistic subjects (the real examples in ../shared/data when present,
else generated ones in the same shapes, each made unique by its counters), then times
the subject parser, the span hash, and the Date/number parsers over it. Prints figures;
this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

SHAPES = [
    '[{i}/{n}] - "Show.Name.S01E{i:02d}.720p.WEB-DL.x264-GRP.part{p:02d}.rar" yEnc ({k}/{t})',
    '{h} [{i:02d}/{n}] - "{h}.vol{p:02d}+{i:02d}.par2" yEnc ({k}/{t})',
    "[PRiVATE] {h}{h}",
    "{h}{h}",
    '<TOWN> www.town.ag > sponsored by www.ssl-news.info > ({i}/{n}) "Film.{p}.par2" - 43,89 MB - '
    "yEnc ({k}/{t})",
    'Artist - Album ({i:02d} of {n}) "{i:02d} - Track.mp3" 12.3 MB yEnc ({k}/{t})',
]


def _subjects(count: int, data: Path) -> list[bytes]:
    rng = np.random.default_rng(7)
    real: list[str] = []
    examples = data / "subjects" / "collection_examples.tsv"
    if examples.exists():
        with open(examples, newline="", encoding="utf-8") as fh:
            real = [r["subject"] + " ({k}/{t})" for r in csv.DictReader(fh, delimiter="\t")]
    out = []
    for j in range(count):
        if real and j % 2:
            shape = real[j % len(real)].replace("{", "{{").replace("}", "}}")
            shape = shape.replace("{{k}}", "{k}").replace("{{t}}", "{t}")
        else:
            shape = SHAPES[j % len(SHAPES)]
        k = int(rng.integers(1, 200))
        values: dict[str, object] = {"i": j % 50 + 1, "n": 50, "p": j % 99, "k": k, "t": k + 10}
        values["h"] = f"{int(rng.integers(0, 2**63)):016x}"
        out.append(shape.format(**values).encode())
    return out


def _time(label: str, count: int, fn: Callable[[], object], repeat: int) -> None:
    """Best of `repeat` runs, as CPU time of this process (the figure per core) and wall time
    (which other work on a shared machine inflates)."""
    fn()  # compile (or load from the cache) and warm up
    cpu = wall = float("inf")
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    print(
        f"{label:<22} {count / cpu / 1e6:6.2f} M lines/s per core (CPU {cpu * 1e3:6.1f} ms, "
        f"wall {wall * 1e3:6.1f} ms for {count:,})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args(argv)

    from kernels.fields import parse_dates, parse_uint
    from kernels.hashing import hash_spans
    from kernels.subject import parse_subjects

    subjects = _subjects(args.lines, args.data)
    buf = np.frombuffer(b"".join(subjects), dtype=np.uint8)
    end = np.cumsum([len(s) for s in subjects], dtype=np.int64)
    start = end - np.array([len(s) for s in subjects], dtype=np.int64)
    print(f"{len(subjects):,} subjects, {buf.nbytes / len(subjects):.0f} B each on average")
    print(f"machine load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    _time("parse_subjects", len(subjects), lambda: parse_subjects(buf, start, end), args.repeat)
    for shape, pick in (("readable, quoted name", 0), ("hex random token", 3)):
        sub = [s for j, s in enumerate(subjects) if j % 2 == 0 and (j // 2) % len(SHAPES) == pick]
        sbuf = np.frombuffer(b"".join(sub), dtype=np.uint8)
        send = np.cumsum([len(s) for s in sub], dtype=np.int64)
        sstart = send - np.array([len(s) for s in sub], dtype=np.int64)
        run = partial(parse_subjects, sbuf, sstart, send)
        _time(f"  {shape}", len(sub), run, args.repeat)
    _time("hash_spans", len(subjects), lambda: hash_spans(buf, start, end), args.repeat)

    dates = [
        b"Mon, 3 Jun 2013 10:11:12 +0200",
        b"03 Jun 13 10:11 GMT",
        b"Tue, 04 Jun 2013 1:2:3 EDT",
    ]
    dbytes = [dates[j % 3] for j in range(args.lines)]
    dbuf = np.frombuffer(b"".join(dbytes), dtype=np.uint8)
    dend = np.cumsum([len(d) for d in dbytes], dtype=np.int64)
    dstart = dend - np.array([len(d) for d in dbytes], dtype=np.int64)
    _time("parse_dates", len(dbytes), lambda: parse_dates(dbuf, dstart, dend), args.repeat)
    _time("parse_uint", len(dbytes), lambda: parse_uint(dbuf, dstart, dstart + 2), args.repeat)


if __name__ == "__main__":
    main()
