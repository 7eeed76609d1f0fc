"""The scale bench: what one live cycle costs over a catalog of 10 M releases (issue 25).

A cycle runs the stages in the order `live` calls them, with their real functions:
capture's listing of what the index has taken (`IndexedRanges.spans` of every group),
the header pass (`replay`, the range scheduler and the tails), the article pass
(`probe_catalog`, with no server: nothing is fetched), the merges (`merge_catalog`), the
health sweep's due releases (`due_now`, the step before any STAT) and the judge
(`judge_catalog`). Each stage's CPU is read around its call (this process: the stages
run in it, as in `live`).

The catalog (`build`, once, into `<dir>/base`): `groups` groups named as the generator
names them, `releases` synthetic releases over them (`bench.synthetic_catalog`: sizes
falling as 1/rank, the biggest group first and the groups with new work next; ranges of
10 k releases and 10 k articles, one file of one segment each, with what the
later passes leave: windows, pending releases, candidates, probes, the probe cache,
merge records, a health check of every release, verdicts), the corpus's manifests of
those ranges (their chunks are never read: the ranges are indexed), and every stage run
over it once, so it stands as a live catalog does between cycles. The new work is a
generated corpus (`pipelines.generate`) of the first groups: its ranges are added to the
corpus as capture would store them, after the catalog's ranges, posted up to a minute
past the catalog's newest post (the settling line moves a minute).

Each run works on a copy of the base made of hard links (`cp -al`: the catalog's writes
are renames, so the base is never changed) with the folders' times kept: (1) idle
cycles, nothing new; (2) the first work size's ranges added, one cycle; (3) idle; (4)
the second size's, one cycle; (5) idle.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.synthetic_catalog import _plan, write_synthetic_catalog
from pipelines.capture.indexed import IndexedRanges
from pipelines.catalog.partitions import list_group
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.manifest import ChunkEntry, RangeManifest
from pipelines.generate import GenerateConfig
from pipelines.generate.corpus import generate_corpus
from pipelines.health.cadence import DEFAULT
from pipelines.health.due import due_now
from pipelines.health.store import health_fold
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from pipelines.index.schedule import range_state, record_rules
from pipelines.index.warm import warm_up
from pipelines.judge.facts import results_of as judge_results
from pipelines.judge.run import judge_catalog
from pipelines.judge.store import verdict_fold
from pipelines.merge.frame import probe_facts
from pipelines.merge.run import merge_catalog
from pipelines.merge.store import merges
from pipelines.probe.cache import ProbeCache
from pipelines.probe.run import probe_catalog
from pipelines.probe.spans import group_signature_counts

NOW = 1_764_460_800  # the synthetic catalog's clock: its newest post is just before it
PER_RANGE = 10_000
STAGES = ("listing", "replay", "probe", "merge", "health", "judge")
BUILT = "built.json"


@dataclass
class Cycle:
    what: str
    lines: int = 0  # new overview lines this cycle
    releases: int = 0  # new releases (finished and provisional versions) indexed
    cpu: dict[str, float] = field(default_factory=dict)  # by stage
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(self.cpu.values())

    def text(self) -> str:
        per = ", ".join(f"{s} {self.cpu.get(s, 0.0):.3f}" for s in STAGES)
        head = f"{self.what}: {self.total:.3f} CPU-s ({per})"
        if self.lines:
            head += (
                f"; {self.lines:,} new lines, {self.releases:,} new releases: "
                f"{self.total / self.lines * 100_000:.3f} CPU-s per 100 k lines"
            )
        return "\n".join([head, *(f"  {n}" for n in self.notes)])


@dataclass
class ScaleFigures:
    groups: int
    releases: int
    cycles: list[Cycle] = field(default_factory=list)
    first_cache_read: float = 0.0  # CPU-s: the probe cache read whole, once a process
    first_kernels: float = 0.0  # CPU-s: the pass's kernels loaded from numba's cache
    first_folds: float = 0.0  # CPU-s: what a live process keeps of every group, read once
    folds_mb: float = 0.0  # the resident memory it takes

    def text(self) -> str:
        lines = [
            f"catalog: {self.releases:,} releases in {self.groups} groups; the probe cache "
            f"read whole once (a new process, by the probe, the merges and the judge): "
            f"{self.first_cache_read:.3f} CPU-s; the kernels loaded: {self.first_kernels:.3f} "
            f"CPU-s; what a live process keeps of every group read once: {self.first_folds:.3f} "
            f"CPU-s, {self.folds_mb:,.0f} MB more resident memory"
        ]
        lines += [c.text() for c in self.cycles]
        idle = [c for c in self.cycles if c.what.startswith("idle ")]  # nothing new at all
        work = [c for c in self.cycles if c.lines]
        if idle:
            worst = max(c.total for c in idle)
            lines.append(f"idle cycle, all stages: {worst:.3f} CPU-s at most (goal <= 0.5)")
        for c in work:
            lines.append(
                f"{c.what}: {c.total / c.lines * 100_000:.3f} CPU-s per 100 k new lines "
                f"(goal <= 1); judge {c.cpu['judge'] / max(c.releases, 1) * 1000:.3f} and "
                f"merge {c.cpu['merge'] / max(c.releases, 1) * 1000:.3f} CPU-ms per new release"
            )
        return "\n".join(lines)


def _names(groups: int) -> list[str]:
    return GenerateConfig(groups=groups).group_names()


def rules_for(groups: int) -> Rules:
    """The rule set the catalog was indexed with: the groups in the generator's order."""
    return Rules(groups=tuple(_names(groups)))


def _work_corpus(folder: Path, groups: int, articles: int, seed: int) -> Path:
    """The generated groups whose ranges are the new work, posted in the 2.4 h up to a
    minute past the catalog's clock."""
    out = folder / "work"
    if not (out / "generate.json").exists():
        if out.exists():
            shutil.rmtree(out)
        days = 0.1
        start = NOW + 60 - int(days * 86_400)
        # ranges of 100 k articles: the work's first range starts near its first article
        # (a group's articles start 1-9 M in), above the catalog's ranges
        config = GenerateConfig(groups=groups, articles=articles, seed=seed, days=days,
                                start=start, range_size=100_000, chunk=20_000)  # fmt: skip
        generate_corpus(str(out), config, progress=False)
    return out / "corpus"


def _work_ranges(work: Path) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for g in sorted(os.listdir(work)):
        if (work / g).is_dir():
            out[g] = sorted((p for p in (work / g).iterdir() if p.is_dir()), key=lambda p: p.name)
    return out


def _lines(range_folder: Path) -> int:
    doc = json.loads((range_folder / "range.json").read_text())
    return sum(int(c["lines"]) for c in doc["chunks"])


def _write_manifests(corpus: str, catalog: str, names: list[str]) -> None:
    """The corpus's manifests of the catalog's ranges (complete; their chunks are not
    stored: an indexed range's are never read again)."""
    fs, root = open_fs(catalog)
    cfs, croot = open_fs(corpus)
    for group in names:
        for p in list_group(fs, root, "ranges", group, stat=False):
            lines = PER_RANGE * 4
            chunk = ChunkEntry(f"{p.first}-{p.last}.xover.zz", p.first, p.last, lines, lines * 30)
            manifest = RangeManifest(group, p.first, p.last, True, (chunk,))
            atomic_put(cfs, f"{croot}/{group}/{p.first}-{p.last}/range.json", manifest.dumps())


def build(
    folder: Path,
    releases: int,
    groups: int,
    work_groups: tuple[int, int],
    articles: int,
    seed: int,
    say: Callable[[str], None],
) -> None:
    """The base catalog and corpus (`folder/base`) and the new work (`folder/work`)."""
    marker = folder / "base" / BUILT
    rules = rules_for(groups)
    if marker.exists():
        built = json.loads(marker.read_text())
        if built.get("rules") == rules.fingerprint:
            return
        # built under another rule set: every range would be due again, over chunks the
        # base never had
        say(f"building: the base was built under rules {built.get('rules')}, now "
            f"{rules.fingerprint}: building it again\n")  # fmt: skip
    work = _work_corpus(folder, sum(work_groups), articles, seed)
    starts = {g: int(ps[0].name.split("-")[0]) for g, ps in _work_ranges(work).items()}
    names = _names(groups)
    # sizes go by place in this list, biggest first: the biggest group gets no new work
    # (its ranges would reach past the work's first article), the next ones do
    order = [names[len(starts)], *names[: len(starts)]]
    order += [g for g in names if g not in order]
    plan = _plan(max(1, -(-releases // PER_RANGE)), groups)
    for g, n_ranges in zip(order, plan, strict=False):
        if g in starts and 1 + n_ranges * PER_RANGE > starts[g]:
            raise ValueError(f"{g}: {n_ranges} ranges of the catalog reach its new work")
    base = folder / "base"
    if base.exists():
        shutil.rmtree(base)
    catalog, corpus = base / "catalog", base / "corpus"
    started = time.monotonic()

    def progress(done: int) -> None:
        rate = done / max(time.monotonic() - started, 1e-9)
        say(f"\rbuilding: {done:,} of {releases:,} releases ({rate:,.0f}/s)")

    write_synthetic_catalog(
        str(catalog), releases, seed=seed, groups=groups, per_range=PER_RANGE,
        range_size=PER_RANGE, now=NOW, days=3_000, progress=progress, group_names=order,
        rules=rules, light=True, phase_two=True,
    )  # fmt: skip
    say("\n")
    record_rules(str(catalog), rules)
    _write_manifests(str(corpus), str(catalog), names)
    say("building: every stage once over the catalog (the judge judges it all) ...\n")
    chain = Chain(str(corpus), str(catalog), rules)
    for _ in range(2):  # the second run finds what the first wrote: every stage settles
        time.sleep(0.2)
        chain.cycle("warm-up")
    index_judge(str(catalog), names, say)
    marker.write_text(
        json.dumps({"releases": releases, "groups": groups, "rules": rules.fingerprint})
    )


class Chain:
    """The stages in live's order over one corpus and catalog; capture's listing object
    lives across cycles, as in `live`."""

    def __init__(self, corpus: str, catalog: str, rules: Rules) -> None:
        self.corpus, self.catalog, self.rules = corpus, catalog, rules
        self.indexed = IndexedRanges(catalog, refresh=0)
        # the clock the health sweep and the judge see: the catalog's, a cycle a minute
        self.now = NOW + 600

    def cycle(self, what: str) -> Cycle:
        """One cycle of every stage; CPU per stage."""
        cycle = Cycle(what)
        corpus, catalog, rules = self.corpus, self.catalog, self.rules

        def timed(stage: str, call: Callable[[], Any]) -> Any:
            cpu = time.process_time()
            out = call()
            cycle.cpu[stage] = cycle.cpu.get(stage, 0.0) + time.process_time() - cpu
            return out

        timed("listing", lambda: [self.indexed.spans(g) for g in rules.groups])
        done = timed("replay", lambda: replay(corpus, catalog, rules, progress=False, tail=True))
        t = done.totals
        cycle.releases = t.releases_finished + t.releases_provisional + t.pending
        version = rules.fingerprint
        probed = timed("probe", lambda: probe_catalog(catalog, None, rules_version=version))
        merged = timed("merge", lambda: merge_catalog(catalog, rules_version=version))
        self.now += 60
        now = self.now
        due = timed("health", lambda: due_now(catalog, now, DEFAULT))
        judged = timed("judge", lambda: judge_catalog(catalog, now=now))
        cycle.notes = [
            f"replay: {t.ranges} ranges, {t.headers:,} headers; probe: {probed.spans} spans, "
            f"{probed.releases:,} releases; merge: {merged.spans} spans, {merged.releases:,} "
            f"new releases; health: {len(due.candidates):,} due, {due.groups_read} groups "
            f"read; judge: {judged.judged:,} of {judged.live:,} judged, {judged.groups_read} "
            "groups read",
        ]
        return cycle


def keep_group(catalog: str, group: str) -> None:
    """What a live process keeps of a group once a stage has read it: its checks and
    verdicts folded, its range logs, probe records' signature counts and merge records."""
    health_fold(catalog, group)
    health_fold(catalog, group, verdicts_only=True)
    verdict_fold(catalog, group)
    group_signature_counts(catalog, group)
    merges(catalog, group)
    fs, root = open_fs(catalog)
    for p in list_group(fs, root, "ranges", group, stat=False):
        range_state(catalog, RangeRef(group, p.first, p.last))


def index_judge(catalog: str, names: list[str], say: Callable[[str], None]) -> None:
    """Every group read whole by the judge once, 20 groups a run (its memory bounded by
    them): each gets the index a judge keeps of a group it read (`pipelines.judge.where`),
    as a live catalog judged for a while has."""
    for i in range(0, len(names), 20):
        say(f"\rbuilding: the judge's index of each group: {i:,} of {len(names):,}")
        judge_catalog(catalog, whole=names[i : i + 20])
    say("\n")


def _copy_base(folder: Path) -> Path:
    """A run's own catalog and corpus: hard links to the base's files, folder times kept."""
    run = folder / "run"
    if run.exists():
        shutil.rmtree(run)
    subprocess.run(["cp", "-al", str(folder / "base"), str(run)], check=True)
    # cp -a sets each folder's times after filling it; keep them as the base has them
    for here, dirs, _ in os.walk(folder / "base"):
        for d in [here, *(os.path.join(here, x) for x in dirs)]:
            st = os.stat(d)
            twin = run / os.path.relpath(d, folder / "base")
            os.utime(twin, ns=(st.st_atime_ns, st.st_mtime_ns))
    return run


def _add_work(corpus: Path, ranges: dict[str, list[Path]], groups: list[str]) -> int:
    """Store the work's ranges of these groups in the corpus, as capture would; lines."""
    lines = 0
    for g in groups:
        for r in ranges.get(g, []):
            shutil.copytree(r, corpus / g / r.name)
            lines += _lines(r)
    return lines


def _rss_mb() -> float:
    """This process's resident memory now."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def _say(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def run_bench(
    folder: Path,
    releases: int = 10_000_000,
    groups: int = 200,
    work_groups: tuple[int, int] = (1, 3),
    articles: int = 34_000,
    seed: int = 3,
    idle_cycles: int = 3,
    say: Callable[[str], None] | None = None,
) -> ScaleFigures:
    say = say or _say
    build(folder, releases, groups, work_groups, articles, seed, say)
    rules = rules_for(groups)
    # the base as a live catalog stands between cycles: every stage's memos current (after
    # a change of the code, the first of these cycles reads what the memos no longer say)
    base_catalog = folder / "base" / "catalog"
    if not (base_catalog / "_judge" / "where").exists():  # a base built before the indexes
        index_judge(str(base_catalog), list(rules.groups), say)
    base = Chain(str(folder / "base" / "corpus"), str(base_catalog), rules)
    for _ in range(2):
        base.cycle("warm-up")
        time.sleep(0.2)
    run = _copy_base(folder)
    corpus, catalog = run / "corpus", run / "catalog"
    figures = ScaleFigures(groups, releases)
    chain = Chain(str(corpus), str(catalog), rules)
    # a live process reads the probe cache's batches once (`WrittenOnce`): after its
    # first cycle with probe or merge work, only new batches. The cycles below are
    # measured in that steady state; the first read is measured apart.
    cpu = time.process_time()
    ProbeCache(str(catalog))
    probe_facts(str(catalog))
    judge_results(str(catalog))
    figures.first_cache_read = time.process_time() - cpu
    # and has loaded the pass's kernels, and kept what it read of the groups it has
    # worked on (`pipelines.catalog.kept`): here every group's, once
    cpu = time.process_time()
    warm_up()
    figures.first_kernels = time.process_time() - cpu
    cpu, rss = time.process_time(), _rss_mb()
    for g in rules.groups:
        keep_group(str(catalog), g)
    figures.first_folds = time.process_time() - cpu
    figures.folds_mb = _rss_mb() - rss
    work = _work_ranges(folder / "work" / "corpus")
    order = list(rules.groups)
    work_names = [g for g in order if g in work]
    sizes = [work_names[: work_groups[0]], work_names[work_groups[0] : sum(work_groups)]]

    def idle(n: int, what: str) -> None:
        time.sleep(1.0)  # a pause between cycles (live's is a minute)
        for i in range(n):
            figures.cycles.append(chain.cycle(f"{what} {i + 1}"))  # "idle 1", "idle 2" ...

    idle(idle_cycles, "idle")
    for k, chosen in enumerate(sizes):
        lines = _add_work(corpus, work, chosen)
        time.sleep(1.0)
        cycle = chain.cycle(f"work {k + 1} ({len(chosen)} groups)")
        cycle.lines = lines
        figures.cycles.append(cycle)
        idle(1, f"after work {k + 1}, nothing new: cycle")
    return figures
