"""The spot reader as an asset, its job and the schedule that runs it.

`spots` runs `pipelines.spots.reader.read_spots` over the nntp resource's server: the
spot group's articles after the last one read, each spot verified and stored, each valid
spot's NZB imported (linked to the header pass's release of the same articles, or a
release of its own a day on). Its metadata: articles read, spots, deletes, rejections by
reason, NZB outcomes. The schedule asks for a run every two minutes unless one is still
queued or running.
"""

from typing import Any

import dagster as dg

from assets.resources import CatalogResource, NNTPResource
from assets.tags import PROBE, job_in_flight, job_tags
from pipelines.spots.reader import BACKFILL, SPOT_GROUP, SpotSummary, read_spots

SPOTS_GROUP = "spots"
SPOTS_JOB = "spots_job"


class SpotsConfig(dg.Config):
    group: str = SPOT_GROUP
    backfill: int = BACKFILL  # articles read the first time


def _metadata(s: SpotSummary) -> dict[str, Any]:
    return {
        "articles": s.articles,
        "spots": s.spots,
        "deletes": s.deletes,
        "last_article": s.last,
        **{f"rejected/{r}": n for r, n in s.rejected.items()},
        **{f"nzb/{o}": n for o, n in s.nzbs.items()},
        "stopped": s.stopped,
        "seconds": dg.MetadataValue.float(round(s.seconds, 3)),
        "cpu_seconds": dg.MetadataValue.float(round(s.cpu_seconds, 3)),
    }


@dg.asset(
    group_name=SPOTS_GROUP,
    description="Spotnet spots: signed descriptions of uploads, verified, with their NZBs "
    "linked to the header pass's releases or made releases of their own.",
)
def spots(
    context: dg.AssetExecutionContext, config: SpotsConfig, catalog: CatalogResource,
    nntp: NNTPResource,
) -> dg.MaterializeResult:  # fmt: skip
    summary = read_spots(catalog.url, nntp.provider(1), group=config.group,
                         backfill=config.backfill)  # fmt: skip
    context.log.info(summary.text())
    return dg.MaterializeResult(metadata=_metadata(summary))


spots_job = dg.define_asset_job(
    SPOTS_JOB,
    selection=dg.AssetSelection.assets(spots),
    description="Read the spot group's new spots and import their NZBs.",
    tags=job_tags(PROBE),
)


@dg.schedule(
    cron_schedule="*/2 * * * *",
    job=spots_job,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    execution_timezone="UTC",
)
def spots_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
    """A spot run every two minutes (each reads only the articles since the last)."""
    if job_in_flight(context.instance, SPOTS_JOB):
        return dg.SkipReason("the previous spots run is still queued or running")
    return dg.RunRequest()
