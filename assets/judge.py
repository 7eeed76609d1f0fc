"""The junk judge as an asset, its job and the schedule that runs it.

`release_verdicts` runs `pipelines.judge.run.judge_catalog` over the catalog: the releases
whose facts changed since its last run (or all, with `everything`), their verdicts stored
in the `release_verdicts` table. Its metadata: releases judged, new verdicts and standing
verdicts per rule, verdicts taken back. Its inputs are the merges (which releases are
live, what they hold) and the health sweep (which are dead), over the article pass's
facts. The schedule (running by default) asks for a run every ten minutes unless one is
still queued or running; a run with nothing changed judges nothing.
"""

from typing import Any

import dagster as dg

from assets.health import release_health
from assets.merges import release_merges
from assets.probes import ARTICLE_PASS_GROUP
from assets.resources import CatalogResource
from assets.tags import MAINTENANCE, job_in_flight, job_tags
from pipelines.judge.rules import ORDER
from pipelines.judge.run import JudgeSummary, judge_catalog


class JudgeConfig(dg.Config):
    everything: bool = False  # judge every release again (`judge --all`)


def _metadata(s: JudgeSummary) -> dict[str, Any]:
    return {
        "rules_version": s.rules_version,
        "full": s.full,
        "live_releases": s.live,
        "judged": s.judged,
        **{f"new/{rule}": s.verdicts[rule] for rule in ORDER},
        **{f"standing/{rule}": s.current[rule] for rule in ORDER},
        "taken_back": s.taken_back,
        "damaged_inputs": len(s.damaged),
        "seconds": dg.MetadataValue.float(round(s.seconds, 3)),
        "cpu_seconds": dg.MetadataValue.float(round(s.cpu_seconds, 3)),
    }


@dg.asset(
    # every group's merges (an unpartitioned asset after partitioned ones: all of them)
    # and the health sweep; the probes come in through the merges
    deps=[release_merges, release_health],
    group_name=ARTICLE_PASS_GROUP,
    description="The junk judge's verdicts: dead, fake, repeated, locked, unusable releases.",
)
def release_verdicts(
    context: dg.AssetExecutionContext, config: JudgeConfig, catalog: CatalogResource
) -> dg.MaterializeResult:
    summary = judge_catalog(catalog.url, everything=config.everything)
    context.log.info(summary.text())
    return dg.MaterializeResult(metadata=_metadata(summary))


JUDGE_JOB = "judge_job"

judge_job = dg.define_asset_job(
    JUDGE_JOB,
    selection=dg.AssetSelection.assets(release_verdicts),
    description="Judge the releases whose facts changed (the junk judge).",
    tags=job_tags(MAINTENANCE),
)


@dg.schedule(
    cron_schedule="*/10 * * * *",
    job=judge_job,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    execution_timezone="UTC",
)
def judge_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
    """A judge run every ten minutes (each judges only what changed)."""
    if job_in_flight(context.instance, JUDGE_JOB):
        return dg.SkipReason("the previous judge run is still queued or running")
    return dg.RunRequest()
