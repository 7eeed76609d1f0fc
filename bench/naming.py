"""The naming's benchmark: the calls the header pass makes per release, old rules and new.

Indexes a generated range (or the first complete range of a stored corpus), records the
arguments of every `display_name`, `usable_name` and `category_of` call the output makes,
then times each function over them: `bench.naming_reference` (the plainer first
version) and `pipelines.naming` (and, with --baseline, an earlier pipelines/naming.py),
in turns chunk by chunk, best of a few rounds with the caches emptied before each, and
checks that the two give the same results.

    python -m bench.naming [--lines 500000] [--seed 1] [--corpus PATH]
        [--rounds 5] [--baseline FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from bench import naming_reference as reference
from pipelines import naming
from pipelines.index.warm import write_range

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


def _clear_caches(modules: list[ModuleType]) -> None:
    for module in modules:
        for cached in ("random_token", "_group_facts"):
            clear = getattr(getattr(module, cached, None), "cache_clear", None)
            if clear is not None:
                clear()


def time_calls(
    functions: list[Callable[..., Any]],
    args: list[tuple[Any, ...]],
    rounds: int,
    modules: list[ModuleType],
    chunk: int = 64,
) -> list[float]:
    """Seconds of one pass over the calls for each function: chunk by chunk, the functions
    in turn, the best of `rounds` per chunk and function, the modules' caches emptied
    before each (a range's releases are new to the caches). Taken in turns, a busy machine
    slows them alike, and a chunk's best leaves out the moments another job held the core."""
    totals = [0.0] * len(functions)
    for start in range(0, len(args), chunk):
        part = args[start : start + chunk]
        best = [float("inf")] * len(functions)
        for _ in range(rounds):
            for i, function in enumerate(functions):
                _clear_caches(modules)
                started = time.perf_counter()
                for a in part:
                    function(*a)
                best[i] = min(best[i], time.perf_counter() - started)
        totals = [total + b for total, b in zip(totals, best, strict=True)]
    return totals


def compare(calls: Calls, rounds: int = 5, baseline: ModuleType | None = None) -> list[str]:
    """One line of figures per function; raises if the two versions disagree anywhere.
    `baseline`: another version of pipelines.naming (an earlier one) to time beside them."""
    modules = [naming] + ([baseline] if baseline else [])
    lines = []
    for name in FUNCTIONS:
        args = calls[name]
        old, new = getattr(reference, name), getattr(naming, name)
        differ = [a for a in args if old(*a) != new(*a)]
        if differ:
            raise AssertionError(f"{name}: {len(differ)} calls differ, first {differ[0]!r}")
        functions = [old, new] + ([getattr(baseline, name)] if baseline else [])
        before, after, *earlier = time_calls(functions, args, rounds, modules)
        n = max(len(args), 1)
        line = (
            f"{name}: {len(args):,} calls; reference {before / n * 1e6:.1f} us/call, "
            f"now {after / n * 1e6:.1f} us/call ({before / max(after, 1e-12):.1f}x); "
            f"{before * 1e3:.1f} -> {after * 1e3:.1f} ms"
        )
        if earlier:
            line += (
                f"; baseline {earlier[0] / n * 1e6:.1f} us/call "
                f"({earlier[0] / max(after, 1e-12):.1f}x now)"
            )
        lines.append(line)
    return lines


def load_baseline(path: str) -> ModuleType:
    """A naming module from a file: `git show REV:pipelines/naming.py > FILE`."""
    spec = importlib.util.spec_from_file_location("naming_baseline", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=500_000, help="lines of the generated range")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpus", help="a stored corpus to read instead of generating one")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per function")
    parser.add_argument(
        "--baseline",
        help="another version of pipelines/naming.py to time beside the two "
        "(git show REV:pipelines/naming.py > FILE)",
    )
    args = parser.parse_args(argv)
    baseline = load_baseline(args.baseline) if args.baseline else None
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus
        if corpus is None:
            print(f"generating a range of {args.lines:,} lines ...", flush=True)
            corpus = str(Path(tmp) / "corpus")
            write_range(Path(corpus), args.lines, args.seed, 100_000)
        print("indexing it, recording the naming calls ...", flush=True)
        calls = record_calls(corpus)
    for line in compare(calls, args.rounds, baseline):
        print(line)


if __name__ == "__main__":
    main()
