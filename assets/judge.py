"""The junk judge as an asset, its job and the schedule that runs it.

`release_verdicts` runs `pipelines.judge.run.judge_catalog` over the catalog: the releases
whose facts changed since its last run (or all, with `everything`), their verdicts stored
in the `release_verdicts` table. Its metadata: releases judged, new verdicts and standing
verdicts per rule, verdicts taken back. The schedule (stopped by default, as the probe
sensor) asks for a run every ten minutes; a run with nothing changed judges nothing.
"""

from typing import Any

import dagster as dg

from assets.probes import ARTICLE_PASS_GROUP
from assets.resources import CatalogResource
from assets.tags import MAINTENANCE, job_tags
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
    deps=["release_probes"],
    group_name=ARTICLE_PASS_GROUP,
    description="The junk judge's verdicts: dead, fake, repeated, locked, unusable releases.",
)
def release_verdicts(
    context: dg.AssetExecutionContext, config: JudgeConfig, catalog: CatalogResource
) -> dg.MaterializeResult:
    summary = judge_catalog(catalog.url, everything=config.everything)
    context.log.info(summary.text())
    return dg.MaterializeResult(metadata=_metadata(summary))


judge_job = dg.define_asset_job(
    "judge_job",
    selection=dg.AssetSelection.assets(release_verdicts),
    description="Judge the releases whose facts changed (the junk judge).",
    tags=job_tags(MAINTENANCE),
)

judge_schedule = dg.ScheduleDefinition(
    name="judge_schedule",
    job=judge_job,
    cron_schedule="*/10 * * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
)
