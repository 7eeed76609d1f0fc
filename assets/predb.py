"""The PreDB scan as an asset, its job and the schedule that runs it every minute.

`pre_scans` runs one cycle of `pipelines.predb.scan.Scanner` over the catalog: pres
learned since the last cycle enter the seed's schedule, the catalog's new names are
matched against every pre, the due pres are scanned. Its metadata: scans, new releases
read, releases named, outcomes per state and links per method this cycle, and the pres
waiting. The schedule (running by default) asks for a run every minute unless one is
still queued or running; an idle cycle reads a memo and a folder stamp per group.
"""

from typing import Any

import dagster as dg

from assets.merges import release_merges
from assets.probes import ARTICLE_PASS_GROUP
from assets.resources import CatalogResource
from assets.tags import MAINTENANCE, job_in_flight, job_tags
from pipelines.predb.scan import ScanSummary, scan_catalog
from pipelines.predb.schedule import TERMINAL


def _metadata(s: ScanSummary) -> dict[str, Any]:
    return {
        "scans": s.scanned,
        "new_releases": s.new_releases,
        "partitions_read": s.partitions,
        "renamed": s.renamed,
        "waiting": s.waiting,
        **{
            f"outcome/{k}": s.outcomes[k]
            for k in (*TERMINAL, "not_found", "size_mismatch", "reaped")
        },
        **{f"method/{k}": v for k, v in sorted(s.methods.items())},
        "busy": s.busy,
        "seconds": dg.MetadataValue.float(round(s.seconds, 3)),
        "cpu_seconds": dg.MetadataValue.float(round(s.cpu_seconds, 3)),
        # the new releases' names read, keyed and matched: what the scan costs per new release
        "matcher_cpu_seconds": dg.MetadataValue.float(round(s.matcher_cpu_seconds, 3)),
    }


@dg.asset(
    deps=[release_merges],
    group_name=ARTICLE_PASS_GROUP,
    description="The PreDB's scans: pres matched to releases on the seed's schedule.",
)
def pre_scans(context: dg.AssetExecutionContext, catalog: CatalogResource) -> dg.MaterializeResult:
    summary = scan_catalog(catalog.url)
    context.log.info(summary.text())
    return dg.MaterializeResult(metadata=_metadata(summary))


PREDB_JOB = "predb_job"

predb_job = dg.define_asset_job(
    PREDB_JOB,
    selection=dg.AssetSelection.assets(pre_scans),
    description="One PreDB scan cycle (new names matched, due pres scanned).",
    tags=job_tags(MAINTENANCE),
)


@dg.schedule(
    cron_schedule="* * * * *",
    job=predb_job,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    execution_timezone="UTC",
)
def predb_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
    """A PreDB scan every minute (the seed's P1 steps are minutes apart)."""
    if job_in_flight(context.instance, PREDB_JOB):
        return dg.SkipReason("the previous PreDB scan is still queued or running")
    return dg.RunRequest()
