"""The health sweep as an asset, the job that runs it and what its schedule asks for.

`release_health` runs one sweep (`pipelines.health.sweep`) over the nntp resource's
server: the releases due by the cadence, a verdict each, stored as write-once batches.
Its runs carry the article pass's kind (assets/tags.py): both read articles over the
account's connections, and the run queue lets one such run go at a time.
"""

from typing import Any

import dagster as dg

from assets.resources import CatalogResource, NNTPResource
from assets.tags import PROBE, job_in_flight, job_tags
from pipelines.health.sweep import SweepSettings, SweepSummary, health_provider, sweep

HEALTH_GROUP = "health"
HEALTH_JOB = "health_job"


class HealthConfig(dg.Config):
    connections: int = 0  # of the account's; 0: all of them
    limit: int = 0  # releases per run; 0: every due one
    stat_timeout: float = 10.0  # seconds for one STAT's reply
    transport_yield: int = 5  # transport failures in a row that end the pass


def health_metadata(s: SweepSummary) -> dict[str, Any]:
    return {
        "candidates": s.candidates,
        "checked": s.checked,
        **{f"verdict/{k}": n for k, n in s.verdicts.items()},
        "stamped": s.stamped,
        "skipped_transport": s.skipped,
        "unchecked": s.unchecked,
        "stats": s.stats,
        "ended": s.ended,
        "seconds": dg.MetadataValue.float(round(s.seconds, 3)),
    }


@dg.asset(
    # it checks the catalog's live releases: the header pass's, as the merges left them
    deps=[
        "releases",
        dg.AssetDep("release_merges", partition_mapping=dg.AllPartitionMapping()),
    ],
    group_name=HEALTH_GROUP,
    description="Whether each release's articles still exist on the news server: a sample "
    "of its segments STATted on a cadence set by its age (healthy, broken or dead).",
)
def release_health(
    context: dg.AssetExecutionContext,
    config: HealthConfig,
    catalog: CatalogResource,
    nntp: NNTPResource,
) -> dg.MaterializeResult:
    connections = config.connections or nntp.account_connections()
    pool = nntp.body_pools(
        connections, catalog.url, lambda p: health_provider(p, config.stat_timeout)
    )
    settings = SweepSettings(
        stat_timeout=config.stat_timeout,
        transport_yield=config.transport_yield,
        limit=config.limit or None,
    )
    try:
        summary = sweep(catalog.url, pool, settings)
    finally:
        pool.close()
    context.log.info(summary.text())
    return dg.MaterializeResult(metadata=health_metadata(summary))


health_job = dg.define_asset_job(
    HEALTH_JOB,
    selection=dg.AssetSelection.assets(release_health),
    description="One health sweep: the releases due for a check.",
    tags=job_tags(PROBE),
)


def sweep_in_flight(instance: dg.DagsterInstance) -> bool:
    """Whether a health sweep is queued or running."""
    return job_in_flight(instance, HEALTH_JOB)
