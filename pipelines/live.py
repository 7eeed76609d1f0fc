"""Live indexing on one machine, without Dagster: capture the groups, index what came,
name, merge, check and judge it, again every interval.

Each cycle is a capture pass (history still missing, then the articles posted since the
last pass, up to the server's high mark less the headroom), a replay of the corpus
(`pipelines.index.replay`): the complete ranges that are due, then each group's growing
range's tail, so a new post is searchable one cycle after capture stored it; then the
stages after the header pass on what changed (`pipelines.live_stages`: the article pass,
merges, the health sweep's share, the judge). The server that shows it is the caller's
(`usenet-indexer live` starts `serve` beside this loop). Capture stays a bounded number
of ranges ahead of what the index has done (`pipelines.capture.indexed.IndexedRanges` as
its `consumed`). A stage that fails on the network is retried the next cycle; anything
else ends the loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from pipelines.capture.prefetch import Capture
from pipelines.corpus.backbones import backbone_of
from pipelines.corpus.fs import sweep_temporary
from pipelines.index.replay import ReplaySummary, replay
from pipelines.index.rules import Rules
from pipelines.live_stages import StageCycle, Stages, StageSettings
from pipelines.live_status import LiveStatus
from pipelines.nntp.errors import NNTPError
from pipelines.providers.failover import BodyPools
from pipelines.rules.apply import scan_unscanned
from pipelines.rules.store import load_rules

log = logging.getLogger(__name__)


@dataclass
class Cycle:
    number: int
    captured: int  # overview lines stored by this cycle's pass
    replay: ReplaySummary
    seconds: float
    problem: str = ""  # a capture pass that failed and is retried next cycle
    stages: StageCycle = field(default_factory=StageCycle)
    settings: StageSettings = field(default_factory=StageSettings)

    def text(self) -> str:
        r = self.replay
        tails = sum(t.result.headers for t in r.tails if t.result is not None)
        open_now = sum(t.result.releases_provisional for t in r.tails if t.result is not None)
        parts = [
            f"cycle {self.number}: captured {self.captured:,} lines",
            f"indexed {r.totals.ranges} ranges ({r.totals.headers:,} headers) + {tails:,} tail "
            f"headers ({open_now:,} releases open at its end)",
            self.stages.text(self.settings),
            f"{self.seconds:.1f} s",
        ]
        problems = ([f"capture: {self.problem}"] if self.problem else []) + self.stages.problems
        return "; ".join([p for p in parts if p] + problems)


@dataclass
class LiveSummary:
    cycles: int = 0
    captured: int = 0
    headers: int = 0  # indexed, ranges and tails
    ranges: int = 0
    seconds: float = 0.0
    stopped: str = ""
    problems: list[str] = field(default_factory=list)  # capture passes that failed
    stage_problems: list[str] = field(default_factory=list)
    stage_lines: list[str] = field(default_factory=list)  # each stage's totals
    swept: int = 0  # temporary files a killed run left, removed at the start

    def format(self) -> str:
        lines = [
            f"live: {self.cycles} cycles in {self.seconds:.0f} s: captured {self.captured:,} "
            f"lines, indexed {self.headers:,} headers ({self.ranges} complete ranges)",
            *self.stage_lines,
        ]
        if self.problems:
            lines.append(f"capture passes that failed and were retried: {len(self.problems)} "
                         f"(last: {self.problems[-1]})")  # fmt: skip
        if self.stage_problems:
            lines.append(f"stage runs that failed and were retried: {len(self.stage_problems)} "
                         f"(last: {self.stage_problems[-1]})")  # fmt: skip
        if self.swept:
            lines.append(f"temporary files a killed run left, removed at the start: {self.swept}")
        if self.stopped:
            lines.append(f"stopped: {self.stopped}")
        return "\n".join(lines)


class Live:
    def __init__(
        self,
        capture: Capture,
        corpus: str,
        catalog: str,
        rules: Rules,
        interval: float = 60.0,
        out: TextIO | None = None,
        stages: StageSettings | None = None,
        bodies: BodyPools | None = None,
        others: Sequence[Capture] = (),
    ) -> None:
        self.capture = capture
        # the other backbones' captures, each into its own corpus (docs/BACKBONES.md)
        self.others = list(others)
        self.corpus = corpus
        self.catalog = catalog
        self.rules = rules
        self.interval = interval
        self.out = out
        self.summary = LiveSummary()
        self._stop = threading.Event()
        # probes and health after capture, on the first provider's pool: never more
        # connections than the account allows
        # (or, given `bodies`, the body providers' pools, sharing capture's where the same)
        self.stages = Stages(catalog, capture.groups, capture.pools.pools[0], stages, bodies)
        self.status = LiveStatus(catalog)  # the last cycle, kept for monitors
        self._rules_seen: str | None = None  # the operator's rule set scanned for

    def stop(self, reason: str = "stopped by request") -> None:
        self.summary.stopped = self.summary.stopped or reason
        self.capture.stop(reason)
        for other in self.others:
            other.stop(reason)
        self._stop.set()

    def cycle(self) -> Cycle:
        started = time.perf_counter()
        self.summary.cycles += 1
        before = self.capture.progress.summary.lines
        problem = ""
        cpu = self.stages.totals.cpu
        cpu_started = time.process_time()
        schedule = self.capture.run_pass()
        if schedule.error is not None:
            if not (isinstance(schedule.error, NNTPError) and schedule.error.retryable):
                raise schedule.error
            # a provider down for a while does not end live indexing: the next cycle retries
            problem = schedule.stopped or str(schedule.error)
            self.summary.problems.append(problem)
        captured = self.capture.progress.summary.lines - before
        captured += self._capture_others()
        cpu["capture"] += time.process_time() - cpu_started
        cpu_started = time.process_time()
        self._scan_changed_rules()
        done = replay(
            self.corpus, self.catalog, self.rules, self.capture.groups, progress=False, tail=True
        )
        cpu["index"] += time.process_time() - cpu_started
        self.summary.captured += captured
        self.summary.ranges += done.totals.ranges
        self.summary.headers += done.totals.headers + sum(
            t.result.headers for t in done.tails if t.result is not None
        )
        after = self.stages.run(done)
        self.summary.stage_problems += after.problems
        self.summary.stage_lines = self.stages.totals.lines(self.stages.settings)
        one = Cycle(self.summary.cycles, captured, done, time.perf_counter() - started, problem,
                    after, self.stages.settings)  # fmt: skip
        if self.out is not None:
            self.out.write(one.text() + "\n")
            self.out.flush()
        self.status.record(one)  # for status.json
        return one

    def _scan_changed_rules(self) -> None:
        """When the operator's rules changed since the last cycle (the admin pages, the
        `rules` command), scan where the new ones fire first: the header pass then redoes
        those ranges only, not every range of their groups."""
        version = load_rules(self.catalog).fingerprint
        if version != self._rules_seen:
            scanned = scan_unscanned(self.corpus, self.catalog, self.rules)
            if scanned:
                log.info("live: scanned where %d changed rules fire", len(scanned))
            self._rules_seen = version

    def _capture_others(self) -> int:
        """A pass of each other backbone's capture; the lines they stored. A backbone that
        fails is reported; one that cannot go on (wrong credentials, an unknown group) is
        left out from then on, and the rest go on."""
        captured = 0
        for other in list(self.others):
            before = other.progress.summary.lines
            schedule = other.run_pass()
            captured += other.progress.summary.lines - before
            if schedule.error is None:
                continue
            name = backbone_of(other.writer.root) or "(unnamed)"
            problem = f"backbone {name}: {schedule.stopped or schedule.error}"
            if not (isinstance(schedule.error, NNTPError) and schedule.error.retryable):
                problem += " (left out from now on)"
                self.others.remove(other)
                other.pools.close()
            self.summary.problems.append(problem)
            log.warning("live: %s", problem)
        return captured

    def run(self, cycles: int | None = None) -> LiveSummary:
        """Cycle every `interval` seconds until stopped (Ctrl-C, `stop`) or `cycles` ran."""
        started = time.perf_counter()
        for root in (self.corpus, self.catalog):  # what a SIGKILL left mid-write
            self.summary.swept += len(sweep_temporary(root))
        try:
            while not self._stop.is_set():
                self.cycle()
                if cycles is not None and self.summary.cycles >= cycles:
                    break
                if self._stop.wait(self.interval):
                    break
        except KeyboardInterrupt:
            self.summary.stopped = "interrupted"
        finally:
            self.capture.pools.close()
            for other in self.others:
                other.pools.close()
            self.stages.bodies.close()  # the body-only providers' pools
            self.summary.seconds = time.perf_counter() - started
        return self.summary
