"""Definitions: the assets, checks, jobs, sensors, resources and executor put together.

`build_defs(resource_overrides=..., executor=...)` is what tests call with temporary
folders; `defs()` is what `dagster dev -m assets` loads. Locations come from the
environment when a run starts (EnvVar), never when this module is imported:

- USENET_INDEXER_CORPUS, USENET_INDEXER_CATALOG: fsspec URLs of corpus and catalog;
- USENET_INDEXER_RULES: the rule set's JSON file (default: the built-in rules);
- USENET_INDEXER_EXECUTOR: `multiprocess` (default), `in_process` or `celery`, read when
  the code location loads; with `celery`, USENET_INDEXER_CELERY_BROKER and
  USENET_INDEXER_CELERY_BACKEND (read when a run starts) name the broker and backend
  (the capture jobs always run in their run's process);
- USENET_INDEXER_NNTP_HOST, _PORT, _TLS, _USER, _CONNECTIONS and the password in
  USENET_INDEXER_NNTP_PASSWORD (or the variable the nntp resource's `password_env` names),
  USENET_INDEXER_GROUPS: the news server and the groups capture reads (assets/resources.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import dagster as dg

from assets.assets import catalog_views, compacted, header_pass
from assets.capture import corpus_asset
from assets.health import health_job, release_health
from assets.ids import ids_job, ids_schedule, release_ids
from assets.jobs import catalog_job, compact_job, history_job, index_job, tail_job
from assets.judge import judge_job, judge_schedule, release_verdicts
from assets.merges import merge_job, merge_sensor, release_merges
from assets.predb import pre_scans, predb_job, predb_schedule
from assets.probes import probe_job, probe_sensor, release_probes
from assets.resources import (
    CaptureResource,
    CatalogResource,
    CorpusResource,
    NNTPResource,
    RulesResource,
)
from assets.rules import rule_set
from assets.schedules import health_schedule, tail_schedule
from assets.sensors import corpus_sensor, history_sensor, index_sensor
from assets.spots import spots, spots_job, spots_schedule
from assets.watchdog import run_watchdog

EXECUTOR_ENV = "USENET_INDEXER_EXECUTOR"
BROKER_ENV = "USENET_INDEXER_CELERY_BROKER"
BACKEND_ENV = "USENET_INDEXER_CELERY_BACKEND"


def default_resources() -> dict[str, Any]:
    return {
        "corpus": CorpusResource(
            url=dg.EnvVar("USENET_INDEXER_CORPUS"), catalog=dg.EnvVar("USENET_INDEXER_CATALOG")
        ),
        "catalog": CatalogResource(url=dg.EnvVar("USENET_INDEXER_CATALOG")),
        "rules": RulesResource(),
        "nntp": NNTPResource(),
        "capture": CaptureResource(),
    }


def executor_named(name: str) -> dg.ExecutorDefinition:
    """The executor for a name: one process, a process per step, or Celery workers."""
    if name == "multiprocess":
        return dg.multiprocess_executor
    if name == "in_process":
        return dg.in_process_executor
    if name == "celery":
        from dagster_celery import celery_executor

        return celery_executor.configured(
            {"broker": {"env": BROKER_ENV}, "backend": {"env": BACKEND_ENV}},
            name="celery_executor",
        )
    raise ValueError(f"{EXECUTOR_ENV} must be multiprocess, in_process or celery, not {name!r}")


def build_defs(
    resource_overrides: Mapping[str, Any] | None = None,
    executor: dg.ExecutorDefinition | None = None,
) -> dg.Definitions:
    return dg.Definitions(
        assets=[
            corpus_asset,
            header_pass,
            compacted,
            catalog_views,
            release_probes,
            release_merges,
            release_health,
            release_verdicts,
            spots,
            release_ids,
            pre_scans,
            rule_set,
        ],
        jobs=[
            index_job,
            compact_job,
            catalog_job,
            tail_job,
            history_job,
            probe_job,
            merge_job,
            health_job,
            judge_job,
            spots_job,
            ids_job,
            predb_job,
        ],
        sensors=[
            corpus_sensor,
            index_sensor,
            history_sensor,
            run_watchdog,
            probe_sensor,
            merge_sensor,
        ],
        schedules=[
            tail_schedule,
            health_schedule,
            judge_schedule,
            spots_schedule,
            ids_schedule,
            predb_schedule,
        ],
        resources={**default_resources(), **(resource_overrides or {})},
        executor=executor,
    )


@dg.definitions
def defs() -> dg.Definitions:
    """What `dagster dev -m assets` loads (the executor chosen by USENET_INDEXER_EXECUTOR)."""
    return build_defs(executor=executor_named(os.environ.get(EXECUTOR_ENV, "multiprocess")))
