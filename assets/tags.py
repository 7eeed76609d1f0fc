"""Run tags: what each run is, how the run queue orders and limits it, which runs are live.

- `usenet-indexer/kind`: `tail`, `history`, `index`, `probe` (the article pass) or
  `maintenance` (compaction, the catalog views), set on every run of a job (job tags). The run queue
  (`launch.INSTANCE_YAML`) limits each kind so that the others can never fill every slot:
  a tail poll always finds one free.
- `dagster/priority`: the queue takes higher first: the tail, then indexing, then the
  article pass (it reads what indexing left), then history.
- `usenet-indexer/group`: an index run's group; the queue runs one at a time per group.
- `usenet-indexer/waits`: the range keys an index run left waiting for another
  backbone's capture (docs/BACKBONES.md); the index sensor asks for them again later.
"""

from __future__ import annotations

import dagster as dg

GROUP_TAG = "usenet-indexer/group"
WAITS_TAG = "usenet-indexer/waits"
KIND_TAG = "usenet-indexer/kind"
PRIORITY_TAG = "dagster/priority"

TAIL, HISTORY, INDEX, MAINTENANCE = "tail", "history", "index", "maintenance"
PROBE = "probe"
PRIORITY = {TAIL: 10, INDEX: 0, MAINTENANCE: 0, PROBE: -5, HISTORY: -10}

# The run queue: at most this many runs of a kind at once, MAX_RUNS in all. The limits of
# the kinds other than the tail add up to MAX_RUNS - 1, so one slot is always the tail's.
MAX_RUNS = 7
KIND_LIMITS = {TAIL: 1, HISTORY: 1, INDEX: 3, MAINTENANCE: 1, PROBE: 1}

IN_FLIGHT = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def job_tags(kind: str) -> dict[str, str]:
    return {KIND_TAG: kind, PRIORITY_TAG: str(PRIORITY[kind])}


def in_flight(instance: dg.DagsterInstance, kind: str) -> list[dg.RunRecord]:
    """The queued or running runs of a kind."""
    return list(instance.get_run_records(dg.RunsFilter(statuses=IN_FLIGHT, tags={KIND_TAG: kind})))


def job_in_flight(instance: dg.DagsterInstance, job_name: str) -> bool:
    """Whether a run of the job is queued or running (a schedule waits for it)."""
    return bool(instance.get_run_records(dg.RunsFilter(job_name=job_name, statuses=IN_FLIGHT)))
