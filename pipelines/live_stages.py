"""The live loop's stages after capture and the header pass, each on what changed.

A cycle runs them in this order, each only when its input moved (`Stages`):
- the article pass (`pipelines.probe.run.probe_catalog`) on the spans the header pass
  wrote this cycle (complete ranges and tail parts: a pending upload is probed the cycle
  its finished release is handed out) and on the spans an earlier probe left waiting;
- merges (`pipelines.merge.run.merge_catalog`) when a complete range was indexed or
  probed (a growing range's tail waits for its range, as in a merge run);
- the health sweep (`pipelines.health.sweep.sweep`) on its cadence, at most
  `health_share` releases a cycle; after a sweep that found nothing more due, the next
  waits for new releases or `health_rest` seconds (releases become due as time passes:
  hours, not seconds);
- the spot reader (`pipelines.spots.reader.read_spots`) every `spots_every` seconds,
  on a connection of the pool (a server without the spot group: never again);
- the PreDB scan (`pipelines.predb.scan.Scanner`) every cycle: new names matched, due
  pres scanned (an idle scan reads a memo and a stamp per group);
- the judge (`pipelines.judge.run.judge_catalog`) when any stage wrote something.

The first cycle of a process runs every stage whatever changed, and the article pass
looks at every span of the groups: what a killed run left half done is found there (each
stage resumes from what it stored). Probes and health borrow the capture's pool of the
first provider, one after the other: the account's connection limit holds.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from pipelines.catalog.layout import partition_path
from pipelines.corpus.fs import open_fs
from pipelines.health.sweep import DONE, SweepSettings, SweepSummary, sweep
from pipelines.ids.lookup import IdLookup
from pipelines.ids.stage import IdsSummary, ids_catalog
from pipelines.index.replay import ReplaySummary
from pipelines.judge.run import JudgeSummary, judge_catalog
from pipelines.merge.run import MergeSummary, merge_catalog
from pipelines.nntp.errors import NNTPError
from pipelines.nntp.pool import ConnectionPool
from pipelines.predb.scan import Scanner, ScanSummary
from pipelines.probe.fetch import PoolSource
from pipelines.probe.ladder import NAMED
from pipelines.probe.run import ProbeSummary, probe_catalog
from pipelines.probe.spans import Span, due, due_spans
from pipelines.providers.failover import BodyPools
from pipelines.spots.reader import SpotSummary, read_spots

STAGES = ("probe", "merge", "health", "predb", "judge")
STEPS = ("capture", "index", *STAGES)  # a cycle's, in order


@dataclass(frozen=True)
class StageSettings:
    """Which stages run after the header pass, and the health sweep's share of a cycle."""

    probe: bool = True
    merge: bool = True
    health: bool = True
    judge: bool = True
    ids: bool = True  # film and series ids on new and renamed releases (pipelines/ids)
    predb: bool = True
    health_share: int | None = 500  # releases checked at most a cycle (None: every due one)
    health_rest: float = 300.0  # seconds between sweeps once one found nothing more due
    spots: bool = True  # read the spot group (free.pt) when the server has it
    spots_every: float = 120.0  # seconds between spot runs

    @classmethod
    def header_only(cls) -> StageSettings:
        return cls(
            probe=False, merge=False, health=False, judge=False, spots=False, ids=False,
            predb=False,
        )  # fmt: skip


@dataclass
class StageTotals:
    """Each stage's figures added up over the run (the summary's lines)."""

    runs: Counter[str] = field(default_factory=Counter)
    probed: int = 0
    fetched: int = 0
    named: int = 0
    merged_spans: int = 0
    merged: int = 0  # merged releases written
    absorbed: int = 0
    checked: int = 0
    health: Counter[str] = field(default_factory=Counter)  # verdicts
    judged: int = 0
    verdicts: int = 0  # new verdicts
    taken_back: int = 0
    ids_matched: int = 0  # release versions given ids
    renamed: int = 0  # releases the PreDB named
    # the process's CPU-seconds by step (capture and the header pass too: the loop's)
    cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STEPS, 0.0))

    def lines(self, settings: StageSettings) -> list[str]:
        out = []
        if settings.probe:
            out.append(f"  probe: {self.runs['probe']} runs, {self.probed:,} releases probed "
                       f"({self.fetched:,} articles fetched, {self.named:,} named)")  # fmt: skip
        if settings.merge:
            out.append(f"  merge: {self.runs['merge']} runs, {self.merged_spans:,} spans "
                       f"merged ({self.merged:,} merged releases, {self.absorbed:,} "
                       "absorbed)")  # fmt: skip
        if settings.health:
            verdicts = ", ".join(f"{n:,} {k}" for k, n in sorted(self.health.items()) if n)
            out.append(f"  health: {self.runs['health']} runs, {self.checked:,} checked"
                       + (f" ({verdicts})" if verdicts else ""))  # fmt: skip
        if settings.predb:
            out.append(f"  predb: {self.runs['predb']} scans, {self.renamed:,} releases named")
        if settings.judge:
            out.append(f"  judge: {self.runs['judge']} runs, {self.judged:,} judged "
                       f"({self.verdicts:,} new verdicts, {self.taken_back:,} taken "
                       "back)")  # fmt: skip
        if settings.ids:
            out.append(f"  ids: {self.ids_matched:,} release versions given ids "
                       f"({self.cpu.get('ids', 0.0):.1f} CPU-s)")  # fmt: skip
        cpu = ", ".join(f"{s} {self.cpu[s]:.1f}" for s in STEPS if s not in STAGES or self.runs[s])
        out.append(f"  CPU-s by step: {cpu}")
        return out


@dataclass
class StageCycle:
    """What the stages did in one cycle: their summaries (None: not run) and problems."""

    probe: ProbeSummary | None = None
    merge: MergeSummary | None = None
    health: SweepSummary | None = None
    judge: JudgeSummary | None = None
    spots: SpotSummary | None = None
    ids: IdsSummary | None = None
    predb: ScanSummary | None = None
    problems: list[str] = field(default_factory=list)

    def text(self, settings: StageSettings) -> str:
        parts = []
        if settings.probe:
            p = self.probe
            parts.append(
                "probed nothing new" if p is None or not p.spans else
                f"probed {p.releases:,} releases ({p.fetched:,} articles, "
                f"{p.outcomes.get(NAMED, 0):,} named)"
            )  # fmt: skip
        if settings.merge:
            m = self.merge
            parts.append(
                "merged nothing new" if m is None else
                f"merged {m.spans:,} spans ({m.wholes:,} merged releases)"
            )  # fmt: skip
        if settings.health:
            h = self.health
            parts.append("health resting" if h is None else f"health {h.checked:,} checked")
        if self.spots is not None:
            parts.append(f"spots {self.spots.spots:,} new")
        if settings.predb and self.predb is not None:
            parts.append(f"predb {self.predb.scanned:,} scans, {self.predb.renamed:,} named")
        if settings.judge:
            j = self.judge
            parts.append(
                "judged nothing new" if j is None else
                f"judged {j.judged:,} ({sum(j.verdicts.values()):,} new verdicts)"
            )  # fmt: skip
        if settings.ids and self.ids is not None and self.ids.releases:
            parts.append(f"ids {self.ids.matched:,} of {self.ids.releases:,} matched")
        return "; ".join(parts)


class Stages:
    """The stages after the header pass, with what each is owed from earlier cycles."""

    def __init__(
        self,
        catalog: str,
        groups: list[str],
        pool: ConnectionPool,
        settings: StageSettings | None = None,
        bodies: BodyPools | None = None,
    ) -> None:
        self.catalog = catalog
        self.groups = groups
        self.pool = pool
        # the article pass and health ask the body providers (issue 29); rests last the run
        # (none: no stage here reads an article, as a test of the later stages runs them)
        self.bodies = bodies or (BodyPools.of(pool) if pool is not None else None)
        self.settings = settings or StageSettings()
        self.totals = StageTotals()
        self.started = False  # a first cycle ran (it looks at everything)
        self.waiting: dict[str, Span] = {}  # spans the article pass left due, by name
        self.health_after = 0.0  # monotonic time before which the sweep rests
        self.probed_a_range = False  # this cycle's article pass wrote a complete range's
        self.spots_after: float | None = 0.0  # when the spot reader runs next (None: never)
        self.ids_lookup: IdLookup | None = None  # loaded once per import
        self.scanner = Scanner(catalog)  # keeps the PreDB lookup mapped between cycles

    def run(self, replayed: ReplaySummary) -> StageCycle:
        """This cycle's stages after the header pass whose `replayed` says what it wrote."""
        first = not self.started
        self.started = True
        out = StageCycle()
        s = self.settings
        wrote = first or bool(replayed.totals.ranges) or any(
            t.part is not None for t in replayed.tails
        )  # fmt: skip
        ranges_moved = first or bool(replayed.totals.ranges)
        if s.probe:
            out.probe = self._probe(replayed, first, out.problems)
            if out.probe is not None and out.probe.spans:
                wrote = True
                ranges_moved = ranges_moved or self.probed_a_range
        if s.merge and ranges_moved:
            out.merge = merge_catalog(self.catalog, groups=self.groups)
            self._add_merge(out.merge)
            wrote = wrote or bool(out.merge.spans)
        # new releases may be due at once (posted long ago: a history caught up)
        if s.health and (wrote or time.monotonic() >= self.health_after):
            out.health = self._health(out.problems)
            wrote = wrote or bool(out.health and out.health.batches)
        if s.spots and self.spots_after is not None and time.monotonic() >= self.spots_after:
            out.spots = self._spots(out.problems)
            wrote = wrote or bool(out.spots.nzbs.get("inserted") or out.spots.nzbs.get("linked"))
        if s.predb:
            out.predb = self._predb()
            wrote = wrote or bool(out.predb.renamed)
        if s.judge and wrote:
            out.judge = judge_catalog(self.catalog)
            self._add_judge(out.judge)
        if s.ids and wrote:  # after the header pass and every renaming (probe, merge)
            started = time.process_time()
            self.ids_lookup = IdLookup.refreshed(self.catalog, self.ids_lookup)
            out.ids = ids_catalog(self.catalog, groups=self.groups, lookup=self.ids_lookup)
            self.totals.ids_matched += out.ids.matched
            self.totals.cpu["ids"] = self.totals.cpu.get("ids", 0.0) + time.process_time() - started
        return out

    # -- the article pass ------------------------------------------------------------------

    def _probe(self, replayed: ReplaySummary, first: bool, problems: list[str]) -> ProbeSummary:
        if first:  # what an earlier process left due: the groups' due spans, as a probe run
            todo = {s.name: s for s in due_spans(self.catalog, self.groups)}
        else:
            todo = {s.name: s for s in self._written(replayed)}
        # spans left waiting before (a transport failure): while their files are there
        fs, _ = open_fs(self.catalog)
        todo.update({n: s for n, s in self.waiting.items() if fs.exists(s.candidates)})
        self.probed_a_range = False
        if not todo:
            self.waiting = {}
            return ProbeSummary()
        ordered = sorted(todo.values(), key=lambda s: (s.group, s.first, s.last))
        assert self.bodies is not None, "the article pass needs a provider"
        source = PoolSource(self.bodies)
        started = time.process_time()
        try:
            summary = probe_catalog(self.catalog, source, only=ordered)
        except NNTPError as exc:
            if not exc.retryable:
                raise
            problems.append(f"probe: {exc}")
            summary = ProbeSummary(gave_up=True)
        if summary.gave_up:
            problems.append("probe: stopped fetching after a run of transport failures")
        self.waiting = {s.name: s for s in ordered if due(self.catalog, s)}
        self.probed_a_range = any(not _is_tail(s) for s in ordered)
        t = self.totals
        t.runs["probe"] += 1
        t.cpu["probe"] += time.process_time() - started
        t.probed += summary.releases
        t.fetched += summary.fetched
        t.named += summary.outcomes.get(NAMED, 0)
        return summary

    def _written(self, replayed: ReplaySummary) -> list[Span]:
        """The candidates partitions the header pass wrote this cycle."""
        out = []
        for r in replayed.results:
            path = partition_path(self.catalog, "probe_candidates", r.group, r.first, r.last)
            out.append(Span(r.group, r.first, r.last, path))
        for t in replayed.tails:
            if t.part is not None and t.result is not None and not t.note:
                first, last = t.part
                path = partition_path(
                    self.catalog, "probe_candidates", t.group, first, last, tail=True
                )
                out.append(Span(t.group, first, last, path))
        fs, _ = open_fs(self.catalog)
        return [s for s in out if fs.exists(s.candidates)]

    # -- spots, health, merges, the judge ----------------------------------------------------

    def _spots(self, problems: list[str]) -> SpotSummary:
        summary = read_spots(self.catalog, pool=self.pool)
        self.spots_after = None if summary.missing_group else (
            time.monotonic() + self.settings.spots_every
        )  # fmt: skip
        if summary.stopped and not summary.missing_group:
            problems.append(f"spots: {summary.stopped}")
        self.totals.runs["spots"] += 1
        self.totals.cpu["spots"] = self.totals.cpu.get("spots", 0.0) + summary.cpu_seconds
        return summary

    def _health(self, problems: list[str]) -> SweepSummary | None:
        settings = SweepSettings(limit=self.settings.health_share)
        started = time.process_time()
        try:
            assert self.bodies is not None, "the health sweep needs a provider"
            summary = sweep(self.catalog, self.bodies, settings)
        except NNTPError as exc:
            if not exc.retryable:
                raise
            problems.append(f"health: {exc}")
            return None
        if summary.ended != DONE:
            problems.append(f"health: ended: {summary.ended}")
        share = self.settings.health_share
        if summary.ended == DONE and (share is None or summary.candidates < share):
            self.health_after = time.monotonic() + self.settings.health_rest
        t = self.totals
        t.runs["health"] += 1
        t.cpu["health"] += time.process_time() - started
        t.checked += summary.checked
        t.health.update(summary.verdicts)
        return summary

    def _predb(self) -> ScanSummary:
        summary = self.scanner.cycle()
        self.totals.runs["predb"] += 1
        self.totals.cpu["predb"] += summary.cpu_seconds
        self.totals.renamed += summary.renamed
        return summary

    def _add_merge(self, m: MergeSummary) -> None:
        t = self.totals
        t.runs["merge"] += 1
        t.cpu["merge"] += m.cpu_seconds
        t.merged_spans += m.spans
        t.merged += m.wholes
        t.absorbed += sum(m.absorbed.values())

    def _add_judge(self, j: JudgeSummary) -> None:
        t = self.totals
        t.runs["judge"] += 1
        t.cpu["judge"] += j.cpu_seconds
        t.judged += j.judged
        t.verdicts += sum(j.verdicts.values())
        t.taken_back += j.taken_back


def _is_tail(span: Span) -> bool:
    return span.candidates.rsplit("/", 1)[-1].startswith("tail-")
