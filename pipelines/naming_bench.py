"""The naming's benchmark: the calls the header pass makes per release, old rules and new.

Indexes a generated range (or the first complete range of a stored corpus), records the
arguments of every `display_name`, `usable_name` and `category_of` call the output makes,
then times each function over them: `kernels.reference.naming` (the plainer first
version) and `pipelines.naming`, best of a few rounds with the caches emptied before each,
and checks that the two give the same results.

    python -m pipelines.naming_bench [--lines 500000] [--seed 1] [--corpus PATH]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kernels.reference import naming as reference
from pipelines import naming

FUNCTIONS = ("display_name", "usable_name", "category_of")
Calls = dict[str, list[tuple[Any, ...]]]


@contextmanager
def _recorded(calls: Calls) -> Iterator[None]:
    """While open, the output's calls of FUNCTIONS go through a recorder (it looks them up
    on the module at each call)."""
    originals = {name: getattr(naming, name) for name in FUNCTIONS}

    def recorder(name: str) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            calls[name].append(args)
            return originals[name](*args)

        return call

    try:
        for name in FUNCTIONS:
            setattr(naming, name, recorder(name))
        yield
    finally:
        for name, function in originals.items():
            setattr(naming, name, function)


def record_calls(corpus: str) -> Calls:
    """The naming calls of indexing the corpus's first complete range."""
    from pipelines.corpus.reader import CorpusReader
    from pipelines.index.range_indexer import index_range
    from pipelines.index.rules import Rules

    reader = CorpusReader(corpus)
    group = reader.groups()[0]
    info = reader.complete_ranges(group)[0]
    calls: Calls = {name: [] for name in FUNCTIONS}
    with tempfile.TemporaryDirectory() as catalog, _recorded(calls):
        index_range(reader, info, catalog, Rules(), [group], None)
    return calls


def write_range(root: str, n_lines: int, seed: int, chunk: int = 100_000) -> None:
    """A generated range of n_lines stored as a corpus (one range, chunks of `chunk`)."""
    import numpy as np

    from pipelines.corpus.layout import RangeRef, plan_chunks
    from pipelines.corpus.writer import CorpusWriter
    from pipelines.generate import generate_range_lines

    data, first, last = generate_range_lines(n_lines=n_lines, seed=seed)
    lines = data.split(b"\r\n")[:-1]
    numbers = np.array([int(line.split(b"\t", 1)[0]) for line in lines], np.int64)
    writer = CorpusWriter(root)
    ref = RangeRef("alt.binaries.bench", first, last)
    entries = []
    for a, b in plan_chunks(first, last, chunk):
        lo, hi = np.searchsorted(numbers, [a, b + 1])
        entries.append(writer.write_chunk(ref, a, b, b"".join(x + b"\r\n" for x in lines[lo:hi])))
    writer.write_manifest(ref, entries, complete=True)


def _clear_caches() -> None:
    naming.random_token.cache_clear()
    naming._group_facts.cache_clear()


def time_calls(function: Callable[..., Any], args: list[tuple[Any, ...]], rounds: int) -> float:
    """Best seconds of one pass over the calls, caches emptied before each round (a
    range's releases are new to the caches)."""
    best = float("inf")
    for _ in range(rounds):
        _clear_caches()
        started = time.perf_counter()
        for a in args:
            function(*a)
        best = min(best, time.perf_counter() - started)
    return best


def compare(calls: Calls, rounds: int = 5) -> list[str]:
    """One line of figures per function; raises if the two versions disagree anywhere."""
    lines = []
    for name in FUNCTIONS:
        args = calls[name]
        old, new = getattr(reference, name), getattr(naming, name)
        differ = [a for a in args if old(*a) != new(*a)]
        if differ:
            raise AssertionError(f"{name}: {len(differ)} calls differ, first {differ[0]!r}")
        before = time_calls(old, args, rounds)
        after = time_calls(new, args, rounds)
        n = max(len(args), 1)
        lines.append(
            f"{name}: {len(args):,} calls; reference {before / n * 1e6:.1f} us/call, "
            f"now {after / n * 1e6:.1f} us/call ({before / max(after, 1e-12):.1f}x); "
            f"{before * 1e3:.1f} -> {after * 1e3:.1f} ms"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=500_000, help="lines of the generated range")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpus", help="a stored corpus to read instead of generating one")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per function")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus
        if corpus is None:
            print(f"generating a range of {args.lines:,} lines ...", flush=True)
            corpus = str(Path(tmp) / "corpus")
            write_range(corpus, args.lines, args.seed)
        print("indexing it, recording the naming calls ...", flush=True)
        calls = record_calls(corpus)
    for line in compare(calls, args.rounds):
        print(line)


if __name__ == "__main__":
    main()
