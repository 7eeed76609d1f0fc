"""The several-providers bench: the article pass and the health sweep over two paced
`serve-nntp` providers, against one provider holding every article.

A generated corpus with its bodies is indexed; a copy of it numbered as another backbone
numbers it (`renumbered`) is the second provider. Then, each on a fresh copy of the
catalog:
- the article pass: one provider holding everything; two providers each missing half of
  the probed articles (every second one taken down on the first, the others on the
  second); the first provider down (nothing listening); the first dropping every
  `drop_every`-th article command. Each is measured twice: fetching every article the
  generator stored a body for (the fetching alone), and the article pass over the
  catalog (ladder, cache and outputs included; the first two only). Prints articles a
  second, per connection, and the failover cost: the extra seconds of the split fetch
  over the one-provider fetch, per article the second provider answered after a 430 on
  the first.
- the health sweep of every release: on one provider, and on both (every sampled segment
  STATted on each). Prints STATs and releases a second.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipelines.articles.store import BODIES_FILE, bodies_url, open_bodies
from pipelines.corpus.codec import inflate
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader
from pipelines.corpus.writer import CorpusWriter


def renumbered(corpus: str, to: Path, offset: int, retention: float = 1.0) -> str:
    """A copy of `corpus` under `to/corpus` numbered `offset` higher (another backbone's
    numbers for the same articles), keeping the newest `retention` share of each group's
    articles (a shorter retention), with the generator's bodies beside it; returns the
    copy's corpus folder. Each group is one range of one chunk: for tests and benches."""
    reader = CorpusReader(corpus)
    writer = CorpusWriter(str(to / "corpus"))
    for group in reader.groups():
        lines: list[tuple[int, bytes]] = []
        for info in reader.ranges(group):
            if info.manifest is None:
                continue
            folder = info.ref.path(reader.root)
            for entry in info.manifest.chunks:
                text = inflate(reader.fs.cat_file(f"{folder}/{entry.file}")).data
                for line in text.split(b"\r\n"):
                    if line:
                        number, rest = line.split(b"\t", 1)
                        lines.append((int(number) + offset, rest))
        if not lines:
            continue
        lines.sort()
        kept = lines[int(len(lines) * (1.0 - retention)) :]
        ref = RangeRef(group, lines[0][0], lines[-1][0])
        body = b"".join(b"%d\t%s\r\n" % (n, rest) for n, rest in kept)
        chunk = writer.write_chunk(ref, ref.first, ref.last, body)
        writer.write_manifest(ref, [chunk], complete=True)
    source = bodies_url(corpus)
    if source is not None:
        (to / BODIES_FILE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, to / BODIES_FILE)
    return str(to / "corpus")


@dataclass
class PassRun:
    name: str
    connections: int
    fetched: int = 0
    missing: int = 0
    transport: int = 0
    failed_over: int = 0
    seconds: float = 0.0
    served: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        rate = self.fetched / self.seconds if self.seconds else 0.0
        served = ", ".join(f"{n:,} from {p}" for p, n in self.served.items())
        return (f"  {self.name}: {self.fetched:,} articles in {self.seconds:.2f} s, "
                f"{rate:,.1f}/s ({rate / self.connections:,.1f}/s per connection); "
                f"{served}; {self.failed_over:,} after a 430 or a drop, "
                f"{self.missing:,} missing, {self.transport:,} without an answer")  # fmt: skip


@dataclass
class SweepRun:
    name: str
    releases: int = 0
    stats: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        per_s = self.stats / self.seconds if self.seconds else 0.0
        releases = self.releases / self.seconds if self.seconds else 0.0
        return (f"  {self.name}: {self.stats:,} STATs for {self.releases:,} releases in "
                f"{self.seconds:.2f} s: {per_s:,.0f} STATs/s, "
                f"{releases:,.1f} releases/s")  # fmt: skip


@dataclass
class ProvidersFigures:
    articles: int
    connections: int
    lines_per_second: float
    lag: float
    fetches: list[PassRun]  # every probed article fetched, nothing else
    passes: list[PassRun]  # the article pass over the catalog
    sweeps: list[SweepRun]

    def failover_ms(self) -> float:
        """Extra milliseconds per article answered by the second provider after a 430."""
        one, split = self.fetches[0], self.fetches[1]
        if not split.failed_over:
            return 0.0
        return 1000 * (split.seconds - one.seconds) / split.failed_over

    def text(self) -> str:
        pace = f"{self.lines_per_second:,.0f} lines/s" if self.lines_per_second else "unpaced"
        return "\n".join([
            f"providers bench: {self.articles:,} articles, {self.connections} connections "
            f"per provider, serve-nntp {pace}, {1000 * self.lag:.1f} ms an article command",
            "fetching every probed article (the ladder and the catalog left out):",
            *(p.line() for p in self.fetches),
            f"  failover cost: {self.failover_ms():,.1f} ms per article the second "
            "provider answered after a 430 on the first",
            "the article pass over the catalog:",
            *(p.line() for p in self.passes),
            "health sweep:",
            *(s.line() for s in self.sweeps),
        ])  # fmt: skip


@contextmanager
def _servers(*setups: tuple[str, list[str]], rate: float) -> Iterator[list[int]]:
    """A paced `serve-nntp` of each (corpus, options), their ports; all stopped at the end."""
    from bench.served import serve_nntp

    with ExitStack() as stack:
        yield [
            stack.enter_context(serve_nntp(corpus, "--lines-per-second", str(rate), *extra))
            for corpus, extra in setups
        ]


def run_bench(
    articles: int = 60_000,
    connections: int = 4,
    lines_per_second: float = 25_000.0,
    lag: float = 0.002,
    drop_every: int = 20,
    seed: int = 3,
    out: Any = sys.stdout,
) -> ProvidersFigures:
    from bench.served import indexed_corpus
    from pipelines.generate import GenerateConfig
    from pipelines.nntpserver.ports import free_port

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        catalog = root / "catalog"
        config = GenerateConfig(groups=2, articles=articles, seed=seed, mix="real")
        corpus = indexed_corpus(root / "gen", str(catalog), config, say=out)
        print("the second backbone's copy ...", file=out, flush=True)
        other = renumbered(corpus, root / "other", offset=10_000_000)
        store = open_bodies(corpus)
        assert store is not None
        ids = sorted(store._index)
        (root / "gone-a.txt").write_text("".join(f"{m}\n" for m in ids[0::2]))
        (root / "gone-b.txt").write_text("".join(f"{m}\n" for m in ids[1::2]))
        alag = ["--faults", f"alag={lag}"] if lag else []
        drops = ["--faults", f"adrop={drop_every}" + (f",alag={lag}" if lag else "")]
        setups = [(corpus, alag), (other, alag),
                  (corpus, [*alag, "--gone", str(root / "gone-a.txt")]),
                  (other, [*alag, "--gone", str(root / "gone-b.txt")]),
                  (corpus, drops)]  # fmt: skip
        passes: list[PassRun] = []
        fetches: list[PassRun] = []
        sweeps: list[SweepRun] = []
        with _servers(*setups, rate=lines_per_second) as (full, full_b, half_a, half_b, drop):
            print(f"fetching the {len(ids):,} probed articles, then article passes ...",
                  file=out, flush=True)  # fmt: skip
            passes_asked = [
                ("one provider, every article", [("a", full)]),
                ("two providers, each missing half", [("a", half_a), ("b", half_b)]),
                ("the first down, the second full", [("a", free_port()), ("b", full_b)]),
                (f"the first dropping every {drop_every}th command", [("a", drop), ("b", full_b)]),
            ]
            for name, ports in passes_asked:
                fetches.append(_article_pass(name, "", ports, connections, ids))
                print(fetches[-1].line(), file=out, flush=True)
            for name, ports in passes_asked[:2]:
                copy = root / f"cat-{len(passes)}"
                shutil.copytree(catalog, copy)
                passes.append(_article_pass(name, str(copy), ports, connections))
                print(passes[-1].line(), file=out, flush=True)
            print("health sweeps ...", file=out, flush=True)
            sweeps_asked = [
                ("one provider", [("a", full)]),
                ("two providers, each STATted", [("a", full), ("b", full_b)]),
            ]
            for name, ports in sweeps_asked:
                copy = root / f"health-{len(sweeps)}"
                shutil.copytree(catalog, copy)
                sweeps.append(_sweep(name, str(copy), ports, connections))
                print(sweeps[-1].line(), file=out, flush=True)
        return ProvidersFigures(articles, connections, lines_per_second, lag, fetches, passes,
                                sweeps)  # fmt: skip


def _pools(
    ports: list[tuple[str, int]], connections: int, adapt: Callable[[Any], Any] | None = None
) -> Any:
    from pipelines.nntp.provider import Provider
    from pipelines.providers.failover import open_body_pools

    providers = [Provider("127.0.0.1", port, name=name, connections=connections,
                          connect_timeout=2.0, timeout=30.0)
                 for name, port in ports]  # fmt: skip
    return open_body_pools(providers, adapt=adapt)


def _article_pass(
    name: str, catalog: str, ports: list[tuple[str, int]], connections: int,
    ids: list[str] | None = None,
) -> PassRun:  # fmt: skip
    """The article pass over `catalog` (or, given `ids`, a fetch of those articles alone,
    the ladder and the catalog left out: the fetching's own rate)."""
    from pipelines.probe.fetch import PoolSource
    from pipelines.probe.run import probe_catalog

    pools = _pools(ports, connections)
    try:
        source = PoolSource(pools, connections)  # the first provider's connections
        started = time.perf_counter()
        if ids is None:
            transport = probe_catalog(catalog, source).transport
        else:
            source.fetch(ids, lambda mid, result: None)
            transport = source.counts.transport
        seconds = time.perf_counter() - started
    finally:
        pools.close()
    return PassRun(name, connections, source.counts.bodies, source.counts.missing,
                   transport, source.failed_over, seconds, dict(source.served))  # fmt: skip


def _sweep(name: str, catalog: str, ports: list[tuple[str, int]], connections: int) -> SweepRun:
    from pipelines.health.sweep import SweepSettings, health_provider, sweep

    settings = SweepSettings(connections=connections)
    pools = _pools(ports, connections, lambda p: health_provider(p, settings.stat_timeout))
    try:
        far = int(time.time()) + 400 * 86_400  # every release due
        started = time.perf_counter()
        summary = sweep(catalog, pools, settings, now=far)
        seconds = time.perf_counter() - started
    finally:
        pools.close()
    return SweepRun(name, summary.checked, summary.stats, seconds)
