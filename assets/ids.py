"""Film and series ids on releases as an asset, its job and the schedule that runs it.

`release_ids` runs `pipelines.ids.stage.ids_catalog` over the catalog: the releases new
or renamed since its last run (the header pass's, the article pass's and the merges'
versions) matched to the id lookup `usenet-indexer ids import` built, into the
`release_ids` table. Its metadata: partitions read, release versions matched, ambiguous,
per method. The schedule (running by default) asks for a run every ten minutes unless
one is still queued or running; a run with nothing new reads nothing, and one without a
lookup does nothing.
"""

from typing import Any

import dagster as dg

from assets.merges import release_merges
from assets.probes import ARTICLE_PASS_GROUP
from assets.resources import CatalogResource
from assets.tags import MAINTENANCE, job_in_flight, job_tags
from pipelines.ids.stage import IdsSummary, ids_catalog


def _metadata(s: IdsSummary) -> dict[str, Any]:
    return {
        "lookup": s.lookup or "none",
        "groups": s.groups,
        "partitions": s.partitions,
        "release_versions": s.releases,
        "matched": s.matched,
        "ambiguous": s.ambiguous,
        **{f"method/{k}": v for k, v in sorted(s.methods.items())},
    }


@dg.asset(
    # every group's merges (the last renaming; the header pass and probes come through it)
    deps=[release_merges],
    group_name=ARTICLE_PASS_GROUP,
    description="Film and series ids (IMDb, TVDB, TVmaze, TVRage, TMDB) matched to releases.",
)
def release_ids(
    context: dg.AssetExecutionContext, catalog: CatalogResource
) -> dg.MaterializeResult:
    summary = ids_catalog(catalog.url)
    context.log.info(
        f"ids: {summary.releases:,} release versions, {summary.matched:,} matched, "
        f"{summary.ambiguous:,} ambiguous (lookup {summary.lookup or 'none'})"
    )
    return dg.MaterializeResult(metadata=_metadata(summary))


IDS_JOB = "ids_job"

ids_job = dg.define_asset_job(
    IDS_JOB,
    selection=dg.AssetSelection.assets(release_ids),
    description="Match the releases new since the last run to the id lookup.",
    tags=job_tags(MAINTENANCE),
)


@dg.schedule(
    cron_schedule="*/10 * * * *",
    job=ids_job,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    execution_timezone="UTC",
)
def ids_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
    """An ids run every ten minutes (each matches only what is new)."""
    if job_in_flight(context.instance, IDS_JOB):
        return dg.SkipReason("the previous ids run is still queued or running")
    return dg.RunRequest()
