"""The merges as an asset per group: `release_merges` joins what the header pass split of
one upload (`pipelines.merge`), over the group's spans the article pass has read.

A run merges the group's spans not merged yet, oldest first, and stops at the first the
article pass has not finished; `merge_sensor` (running by default) asks again for each
group once more spans are ready (its place is kept). Its runs are of the article pass's
kind (`tags.PROBE`): one at a time, never beside a probe run writing the cache it reads.
"""

from typing import Any

import dagster as dg

from assets.partitions import GROUPS
from assets.probes import ARTICLE_PASS_GROUP
from assets.resources import CatalogResource
from assets.tags import PROBE, job_tags
from pipelines.merge.run import MergeSummary, groups_of, merge_catalog, ready_spans


def _metadata(s: MergeSummary) -> dict[str, Any]:
    return {
        "spans": s.spans,
        "releases": s.releases,
        "merged_releases": s.wholes,
        "absorbed": sum(s.absorbed.values()),
        **{f"absorbed/{via}": n for via, n in sorted(s.absorbed.items())},
        "waiting_spans": len(s.waiting),
        "seconds": dg.MetadataValue.float(round(s.seconds, 3)),
        "cpu_seconds": dg.MetadataValue.float(round(s.cpu_seconds, 3)),
    }


@dg.asset(
    # a group's merge reads every probed range of the group: no built-in mapping says
    # "the ranges of this group" (keys differ), so all of them (the identity default
    # would name range partitions that never exist)
    deps=[dg.AssetDep("release_probes", partition_mapping=dg.AllPartitionMapping())],
    partitions_def=GROUPS,
    group_name=ARTICLE_PASS_GROUP,
    description="Split uploads joined: par2, name and sidecar merges, as catalog versions.",
)
def release_merges(
    context: dg.AssetExecutionContext, catalog: CatalogResource
) -> dg.MaterializeResult:
    summary = merge_catalog(catalog.url, groups=[context.partition_key])
    context.log.info(summary.text())
    return dg.MaterializeResult(metadata=_metadata(summary))


merge_job = dg.define_asset_job(
    "merge_job",
    selection=dg.AssetSelection.assets(release_merges),
    description="Merge a group's split uploads (after the article pass).",
    tags=job_tags(PROBE),
)


@dg.sensor(
    job=merge_job, minimum_interval_seconds=120, default_status=dg.DefaultSensorStatus.RUNNING
)
def merge_sensor(context: dg.SensorEvaluationContext, catalog: CatalogResource) -> dg.SensorResult:
    """Requests a merge of each group with spans ready (not merged yet, probed), once per
    newest ready span."""
    groups = set(context.instance.get_dynamic_partitions(GROUPS.name or "groups"))
    requests = []
    for group in groups_of(catalog.url):
        if group not in groups:
            continue
        ready, _ = ready_spans(catalog.url, group)
        if ready:
            newest = f"{ready[-1].first}-{ready[-1].last}"
            requests.append(dg.RunRequest(partition_key=group, run_key=f"merge@{group}@{newest}"))
    return dg.SensorResult(run_requests=requests)
