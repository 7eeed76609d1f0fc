"""The main job: every asset of a corpus materialized on a local Dagster instance.

What `usenet-indexer demo` (and so `scripts/run.sh`) calls, in the assets' dependency
order, one run per step so the UI shows each: register the corpus's partitions; run
each group's ranges that need it (new or stale) in article order (the header pass);
probe each range whose candidates wait (the article pass, over the nntp resource's
server); merge each group with spans ready; read the spot group (Spotnet spots and their
NZBs, over the same server); compact every group; one health sweep; one judge run;
refresh the catalog asset. Every step does only what is new: a second run
over the same corpus launches compaction, the sweep, the judge and the catalog (each
finds nothing to do), nothing else. The instance is a folder (DAGSTER_HOME), so
`dagster dev` over the same folder shows these runs afterwards.

Compaction comes after the article pass (the probes are per range partition: a range's
candidates must still be its own file when its probe run reads them) and before the
judge (which takes files rewritten since its last run for changed facts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import dagster as dg
from tqdm import tqdm

from assets.definitions import build_defs
from assets.partitions import RANGES, range_key, ranges_by_group, register_partitions
from assets.resources import CatalogResource, CorpusResource, NNTPResource, RulesResource
from assets.tags import GROUP_TAG, KIND_LIMITS, KIND_TAG, MAX_RUNS
from pipelines.corpus.layout import RangeRef
from pipelines.index.schedule import GroupSchedule, RangeTotals, range_logged
from pipelines.merge.run import ready_spans
from pipelines.probe.run import spans_within

QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def instance_yaml() -> str:
    """The instance settings the main job writes when DAGSTER_HOME has none.

    The run queue (what `dagster dev` and the daemon launch: sensor, schedule and UI runs)
    keeps to one index run per group at a time, to each kind's limit (assets/tags.py:
    the others never fill every slot, so a tail poll always finds one) and takes higher
    priorities first. Run monitoring fails runs that never start or never finish
    cancelling; the run watchdog sensor (assets/watchdog.py) those whose process died.
    """
    kinds = "".join(
        f"""      - key: "{KIND_TAG}"
        value: "{kind}"
        limit: {limit}
"""
        for kind, limit in KIND_LIMITS.items()
    )
    return f"""\
telemetry:
  enabled: false
concurrency:
  runs:
    max_concurrent_runs: {MAX_RUNS}
    tag_concurrency_limits:
      - key: "{GROUP_TAG}"
        value:
          applyLimitPerUniqueValue: true
        limit: 1
{kinds}run_monitoring:
  enabled: true
  start_timeout_seconds: 180
  cancel_timeout_seconds: 180
  poll_interval_seconds: 60
"""


INSTANCE_YAML = instance_yaml()

# What earlier versions wrote: replaced by the current settings (a file of one's own stays)
EARLIER_INSTANCE_YAML = """\
telemetry:
  enabled: false
concurrency:
  runs:
    max_concurrent_runs: 4
    tag_concurrency_limits:
      - key: "usenet-indexer/group"
        value:
          applyLimitPerUniqueValue: true
        limit: 1
"""


@dataclass
class MainJobSummary:
    totals: RangeTotals = field(default_factory=RangeTotals)  # of the ranges run
    ranges_done_before: int = 0
    failed: list[str] = field(default_factory=list)
    releases: int = 0
    compaction: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)  # a line per step after the header pass
    # the stages' figures, added up over their runs (probes: releases, outcome/named...)
    figures: dict[str, dict[str, int]] = field(default_factory=dict)
    seconds: float = 0.0
    catalog_metadata: dict[str, object] = field(default_factory=dict)
    # per job: (runs, wall seconds with Dagster's own work), in the order first run
    runs: dict[str, tuple[int, float]] = field(default_factory=dict)

    def text(self) -> str:
        t = self.totals  # its seconds: inside the header pass, without Dagster's overhead
        lines = [
            f"materialized {t.ranges} range partitions ({self.ranges_done_before} were "
            f"already done) in {self.seconds:.1f} s: {t.headers:,} headers, "
            f"{t.seconds:.1f} s in the header pass ({t.headers_per_second:,.0f} headers/s); "
            f"the catalog shows {self.releases:,} releases"
        ]
        lines += self.stages
        if self.runs:
            lines.append("runs: " + ", ".join(
                f"{job} {n} ({seconds:.1f} s)" for job, (n, seconds) in self.runs.items()
            ))  # fmt: skip
        lines += [f"failed: {f}" for f in self.failed]
        return "\n".join(lines)

    def add(self, stage: str, metadata: dict[str, object]) -> dict[str, int]:
        """Add a run's integer figures to its stage's; returns the stage's."""
        sums = self.figures.setdefault(stage, {})
        for k, v in metadata.items():
            if isinstance(v, int) and not isinstance(v, bool):
                sums[k] = sums.get(k, 0) + v
        return sums


def prepare_home(home: Path) -> Path:
    """A Dagster instance folder with the project's run-queue limits and run monitoring
    (a dagster.yaml of one's own is kept; the one an earlier version wrote is replaced)."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists() or config.read_text() == EARLIER_INSTANCE_YAML:
        config.write_text(INSTANCE_YAML)
    return home


def register(instance: dg.DagsterInstance, corpus: CorpusResource) -> list[str]:
    """Add partitions for the corpus's complete ranges and groups; returns the new ranges."""
    return register_partitions(instance, corpus)[0]


def _metadata(result: dg.ExecuteInProcessResult, asset: str) -> dict[str, object]:
    """The metadata of the run's (one) materialization of `asset`."""
    (event,) = (
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.asset_key == dg.AssetKey(asset)
    )
    return {k: v.value for k, v in event.metadata.items()}


class _Launcher:
    """One main job's runs: each step a run of its job on the instance, in process."""

    def __init__(
        self, instance: dg.DagsterInstance, defs: dg.Definitions, summary: MainJobSummary
    ) -> None:
        self.instance, self.defs, self.summary = instance, defs, summary

    def run(
        self, job: str, asset: str, partition: str | None = None, **tags: str
    ) -> dict[str, object] | None:
        """The run's materialization metadata, or None (the failure noted) when it failed."""
        started = time.perf_counter()
        result = self.defs.resolve_job_def(job).execute_in_process(
            instance=self.instance, partition_key=partition, run_config=QUIET, tags=tags,
            raise_on_error=False,
        )  # fmt: skip
        n, seconds = self.summary.runs.get(job, (0, 0.0))
        self.summary.runs[job] = (n + 1, seconds + time.perf_counter() - started)
        if not result.success:
            self.summary.failed.append(f"{job} {partition or ''} (run {result.run_id})".strip())
            return None
        return _metadata(result, asset)


def run_main_job(
    instance: dg.DagsterInstance,
    corpus: str,
    catalog: str,
    rules_path: str = "",
    progress: bool = True,
    out: TextIO | None = None,
    nntp: NNTPResource | None = None,
) -> MainJobSummary:
    """Every asset materialized, in dependency order. `nntp`: the news server the probes
    and the health sweep read (without it those two steps are left out)."""
    started = time.perf_counter()
    corpus_resource = CorpusResource(url=corpus, catalog=catalog)
    rules_resource = RulesResource(path=rules_path)
    resources: dict[str, object] = {
        "corpus": corpus_resource,
        "catalog": CatalogResource(url=catalog),
        "rules": rules_resource,
    }
    if nntp is not None:
        resources["nntp"] = nntp
    defs = build_defs(resource_overrides=resources, executor=dg.in_process_executor)
    summary = MainJobSummary()
    launch = _Launcher(instance, defs, summary)
    register(instance, corpus_resource)
    by_group = ranges_by_group(instance.get_dynamic_partitions(RANGES.name or "ranges"))
    _header_pass(launch, by_group, catalog, rules_resource, progress)
    if not summary.failed:
        _article_pass(launch, by_group, catalog, with_server=nntp is not None)
        if nntp is not None:
            _spots(launch)
        _compaction(launch, by_group)
        _health_and_verdicts(launch, with_server=nntp is not None)
        _catalog(launch)
    summary.seconds = time.perf_counter() - started
    if out is not None:
        out.write(summary.text() + "\n")
    return summary


def _header_pass(
    launch: _Launcher,
    by_group: dict[str, list[RangeRef]],
    catalog: str,
    rules: RulesResource,
    progress: bool,
) -> None:
    """Each group's due ranges in article order, a run each; stops a group at a failure."""
    summary, rule_set = launch.summary, rules.load()
    total = sum(len(refs) for refs in by_group.values())
    bar = tqdm(total=total, unit="range", desc="header pass", disable=not progress)
    for group, refs in by_group.items():
        schedule = GroupSchedule(catalog, refs, rule_set)
        while (due := schedule.next_due()) is not None:
            key = range_key(due.ref)
            bar.set_postfix_str(key)
            if launch.run("index_job", "releases", key, **{GROUP_TAG: group}) is None:
                break
            schedule.indexed(due.ref)
            summary.totals.add(range_logged(schedule.states[due.ref]))
            bar.update(1)
    bar.close()
    summary.ranges_done_before = total - summary.totals.ranges


def _article_pass(
    launch: _Launcher, by_group: dict[str, list[RangeRef]], catalog: str, with_server: bool
) -> None:
    """Probes of the ranges whose candidates wait, then merges of the groups with spans
    ready: a line of figures each."""
    summary = launch.summary
    if with_server:
        ranges = 0
        for group, refs in by_group.items():
            for ref in refs:
                if not spans_within(catalog, group, ref.first, ref.last):
                    continue  # probed before, nothing left waiting
                ranges += 1
                if (meta := launch.run("probe_job", "release_probes", range_key(ref))) is not None:
                    summary.add("probes", meta)
        p = summary.figures.get("probes", {})
        summary.stages.append(
            f"probed {ranges} range partitions: {p.get('releases', 0):,} releases, "
            f"{p.get('outcome/named', 0):,} pending named, "
            f"{p.get('articles_fetched', 0):,} articles fetched"
        )
    groups = [g for g in by_group if ready_spans(catalog, g)[0]]
    for group in groups:
        if (meta := launch.run("merge_job", "release_merges", group)) is not None:
            summary.add("merges", meta)
    m = summary.figures.get("merges", {})
    summary.stages.append(
        f"merged {len(groups)} groups: {m.get('spans', 0)} spans, "
        f"{m.get('merged_releases', 0)} merged releases absorbing {m.get('absorbed', 0)}"
    )


def _spots(launch: _Launcher) -> None:
    """The spot group's spots read and verified, their NZBs linked to the header pass's
    releases or imported as releases of their own (before health and the judge: those
    releases are checked and judged like the others)."""
    if (meta := launch.run("spots_job", "spots")) is None:
        return
    s = launch.summary.add("spots", meta)
    rejected = sum(v for k, v in s.items() if k.startswith("rejected/"))
    launch.summary.stages.append(
        f"spots: {s.get('spots', 0):,} valid, {rejected:,} rejected; their NZBs "
        f"{s.get('nzb/linked', 0):,} linked to releases, {s.get('nzb/inserted', 0):,} imported"
    )


def _health_and_verdicts(launch: _Launcher, with_server: bool) -> None:
    """One health sweep (what its cadence says is due) and one judge run (what changed).

    After compaction: the judge's next run would take compaction's rewritten files for
    changed facts and judge everything again."""
    summary = launch.summary
    if with_server and (meta := launch.run("health_job", "release_health")) is not None:
        h = summary.add("health", meta)
        verdicts = ", ".join(
            f"{h[k]:,} {k.split('/', 1)[1]}" for k in sorted(h) if k.startswith("verdict/")
        )
        summary.stages.append(f"health: {h.get('checked', 0):,} releases checked ({verdicts})")
    if (meta := launch.run("judge_job", "release_verdicts")) is not None:
        j = summary.add("verdicts", meta)
        standing = ", ".join(
            f"{j[k]:,} {k.split('/', 1)[1]}"
            for k in sorted(j)
            if k.startswith("standing/") and j[k]
        )
        summary.stages.append(
            f"judged {j.get('judged', 0):,} releases; verdicts standing: {standing or 'none'}"
        )


def _compaction(launch: _Launcher, by_group: dict[str, list[RangeRef]]) -> None:
    """Each group's small files merged (after the article pass: see the module's note)."""
    summary = launch.summary
    for group in by_group:
        meta = launch.run("compact_job", "compacted", group)
        if meta is None:
            continue
        left = sum(int(str(v)) for k, v in meta.items() if k.endswith("/files"))
        summary.compaction.append(
            f"{group}: {meta['files_merged']} files merged, {left} files left "
            f"in {float(str(meta['seconds'])):.2f} s"
        )
        summary.stages.append(f"compacted {summary.compaction[-1]}")


def _catalog(launch: _Launcher) -> None:
    """The catalog views refreshed: what the server will show, merges and all."""
    summary = launch.summary
    views = launch.run("catalog_job", "catalog_views")
    if views is not None:
        summary.catalog_metadata = views
        releases = views.get("releases", 0)
        summary.releases = int(releases) if isinstance(releases, int) else 0
