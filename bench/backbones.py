"""Two backbones: capture with two providers, and the header pass's fill by message-id.

- `capture_two`: two paced serve-nntp processes, one per backbone, captured at once by
  `BackboneCapture` (N connections each), beside one provider alone with N connections:
  lines/s per connection of each. Connections are logged in before the clock starts, as
  in `bench-capture`.
- `fill_cost`: a generated group indexed from one provider holding everything, and from
  the same articles split over two backbones (`bench/backbone_split.py`: the primary
  lacking its oldest articles and 1 in 20 of the rest), CPU-seconds of each pass, best of
  `repeat` runs each, alternated so both see the same load.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.backbone_split import Split, SplitSettings, split_corpus
from bench.capture import BENCH_GROUP, bench_settings, log_in
from pipelines.capture.backbones import BackboneCapture, BackboneRun
from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.index.replay import ReplaySummary, replay
from pipelines.index.rules import Rules
from pipelines.nntp.provider import Provider


def _provider(port: int, connections: int, backbone: str, variant: str) -> Provider:
    return Provider("127.0.0.1", port, connections=connections, compression=variant,
                    timeout=30.0, name=f"{backbone}-news", backbone=backbone)  # fmt: skip


def capture_two(
    ports: list[int],
    connections: int,
    variant: str,
    chunks_each: int,
    chunk: int,
    bounds: tuple[int, int],
) -> list[BackboneRun]:
    """Each port a backbone (`b0`, `b1`, ...), `connections` each, `chunks_each` chunks a
    connection; every backbone's run."""
    root = tempfile.mkdtemp(prefix="bench-backbones-")
    settings = bench_settings(connections, chunks_each, chunk, bounds)
    try:
        providers = [_provider(p, connections, f"b{i}", variant) for i, p in enumerate(ports)]
        capture = BackboneCapture(providers, root, [BENCH_GROUP], settings)
        for one in capture.captures.values():
            log_in(one.pools)
        return capture.run()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class FillFigures:
    lines: int
    split: Split
    one_cpu: list[float]  # CPU-seconds of the pass over one provider, each run
    two_cpu: list[float]  # over the split corpus, with the fill
    filled: dict[str, int]

    def text(self) -> str:
        one, two = min(self.one_cpu), min(self.two_cpu)
        other = sum(v for k, v in self.filled.items() if k.startswith("chunks_read:"))
        return "\n".join(
            [
                f"headers: {self.lines:,}; the primary lacks {self.split.lacking_a:,} "
                f"(filled {self.filled.get('filled', 0):,}), the other backbone "
                f"{self.split.lacking_b:,}; other backbone chunks read: {other:,}",
                f"one provider: {self.lines / one:,.0f} headers/s per core ({one:.2f} CPU-s; "
                f"runs {', '.join(f'{c:.2f}' for c in self.one_cpu)})",
                f"two backbones, filled by message-id: {self.lines / two:,.0f} headers/s per "
                f"core ({two:.2f} CPU-s; runs {', '.join(f'{c:.2f}' for c in self.two_cpu)})",
                f"the fill's cost: {two / one - 1:+.1%} of the pass "
                f"({(two - one) / self.lines * 1e6:.2f} us a header)",
                "outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(self.filled.items())),
            ]
        )


def fill_cost(work: str, articles: int, range_size: int, chunk: int, repeat: int) -> FillFigures:
    """The header pass over one provider and over the same group split in two, `repeat`
    times each (alternated), from empty catalogs."""
    out = Path(work)
    corpus = out / "one" / "corpus"
    if not corpus.exists():
        config = GenerateConfig(groups=1, articles=articles, seed=7, range_size=range_size,
                                chunk=chunk)  # fmt: skip
        generate_corpus(str(out / "one"), config, progress=False)
    split_root = out / "split"
    shutil.rmtree(split_root, ignore_errors=True)
    settings = SplitSettings(range_size=range_size, chunk_size=chunk, retention=chunk)
    split = split_corpus(str(corpus), str(split_root), settings)
    runs: dict[str, list[float]] = {"one": [], "two": []}
    last: dict[str, ReplaySummary] = {}
    for _ in range(repeat):
        for name, source in (("one", corpus), ("two", split_root)):
            catalog = out / f"catalog-{name}"
            shutil.rmtree(catalog, ignore_errors=True)
            started = time.process_time()
            last[name] = replay(str(source), str(catalog), Rules(), progress=False, tail=False)
            runs[name].append(time.process_time() - started)
    return FillFigures(last["one"].totals.headers, split, runs["one"], runs["two"],
                       last["two"].filled)  # fmt: skip
