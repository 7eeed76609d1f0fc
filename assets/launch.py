"""The main job: every partition of a corpus materialized on a local Dagster instance.

What `usenet-indexer demo` (and so `scripts/run.sh`) calls: register the corpus's
partitions, run each group's ranges that need it (new or stale) in article order, one
run per range so the UI shows each, then compact every group and refresh the catalog
asset. The instance is a folder (DAGSTER_HOME), so `dagster dev` over the same folder
shows these runs afterwards.
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
from assets.resources import CatalogResource, CorpusResource, RulesResource
from assets.tags import GROUP_TAG, KIND_LIMITS, KIND_TAG, MAX_RUNS
from pipelines.index.schedule import GroupSchedule, RangeTotals, range_logged

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
    seconds: float = 0.0
    catalog_metadata: dict[str, object] = field(default_factory=dict)

    def text(self) -> str:
        t = self.totals  # its seconds: inside the header pass, without Dagster's overhead
        lines = [
            f"materialized {t.ranges} range partitions ({self.ranges_done_before} were "
            f"already done) in {self.seconds:.1f} s: {t.headers:,} headers, "
            f"{t.seconds:.1f} s in the header pass ({t.headers_per_second:,.0f} headers/s); "
            f"the catalog shows {self.releases:,} releases"
        ]
        lines += [f"compacted {c}" for c in self.compaction]
        lines += [f"failed: {f}" for f in self.failed]
        return "\n".join(lines)


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


def run_main_job(
    instance: dg.DagsterInstance,
    corpus: str,
    catalog: str,
    rules_path: str = "",
    progress: bool = True,
    out: TextIO | None = None,
) -> MainJobSummary:
    started = time.perf_counter()
    corpus_resource = CorpusResource(url=corpus)
    rules_resource = RulesResource(path=rules_path)
    resources = {
        "corpus": corpus_resource,
        "catalog": CatalogResource(url=catalog),
        "rules": rules_resource,
    }
    defs = build_defs(resource_overrides=resources, executor=dg.in_process_executor)
    rules = rules_resource.load()
    register(instance, corpus_resource)
    by_group = ranges_by_group(instance.get_dynamic_partitions(RANGES.name or "ranges"))
    summary = MainJobSummary()
    total = sum(len(refs) for refs in by_group.values())
    bar = tqdm(total=total, unit="range", desc="header pass", disable=not progress)
    index_job = defs.resolve_job_def("index_job")
    for group, refs in by_group.items():
        schedule = GroupSchedule(catalog, refs, rules)
        while (due := schedule.next_due()) is not None:
            key = range_key(due.ref)
            bar.set_postfix_str(key)
            result = index_job.execute_in_process(
                instance=instance,
                partition_key=key,
                run_config=QUIET,
                tags={GROUP_TAG: group},
                raise_on_error=False,
            )
            if not result.success:
                summary.failed.append(f"{key} (run {result.run_id})")
                break
            schedule.indexed(due.ref)
            summary.totals.add(range_logged(schedule.states[due.ref]))
            bar.update(1)
    bar.close()
    summary.ranges_done_before = total - summary.totals.ranges
    if not summary.failed:
        compact_job = defs.resolve_job_def("compact_job")
        for group in by_group:
            run = compact_job.execute_in_process(
                instance=instance, partition_key=group, run_config=QUIET
            )
            done_meta = run.asset_materializations_for_node("compacted")[0].metadata
            left = sum(int(str(v.value)) for k, v in done_meta.items() if k.endswith("/files"))
            summary.compaction.append(
                f"{group}: {done_meta['files_merged'].value} files merged, {left} files left "
                f"in {float(str(done_meta['seconds'].value)):.2f} s"
            )
        done = defs.resolve_job_def("catalog_job").execute_in_process(
            instance=instance, run_config=QUIET
        )
        views = done.asset_materializations_for_node("catalog_views")[0].metadata
        summary.catalog_metadata = {k: v.value for k, v in views.items()}
        releases = summary.catalog_metadata.get("releases", 0)
        summary.releases = int(releases) if isinstance(releases, int) else 0
    summary.seconds = time.perf_counter() - started
    if out is not None:
        out.write(summary.text() + "\n")
    return summary
