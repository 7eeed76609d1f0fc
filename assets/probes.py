"""The article pass as an asset per (group, range), and the sensor that starts it.

`release_probes` probes what a range's header pass left (its candidates and pending
releases, or the tail parts written of it so far), through `pipelines.probe.run`, from
the nntp resource's server or, with `bodies` set, from a stored folder of bodies. The
sensor (running by default; it skips while no news server is configured) asks for each
range whose candidates are not probed yet (or were left waiting).
"""

from typing import Any

import dagster as dg

from assets.partitions import RANGES, parse_range_key, range_key
from assets.resources import CatalogResource, NNTPResource
from assets.tags import PROBE, job_tags
from pipelines.catalog.probe_outputs import output_paths
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.probe.fetch import PoolSource, StoreSource
from pipelines.probe.run import ProbeSummary, probe_catalog, spans_within
from pipelines.probe.spans import due, spans

ARTICLE_PASS_GROUP = "article_pass"


class ProbeConfig(dg.Config):
    bodies: str = ""  # a stored folder of article bodies, read in place of a server
    connections: int = 0  # of the account's; 0: all of them
    limit: int = 0  # releases per run; 0: no limit


def _metadata(s: ProbeSummary) -> dict[str, Any]:
    return {
        "spans": s.spans,
        "releases": s.releases,
        **{f"outcome/{k}": n for k, n in sorted(s.outcomes.items())},
        "articles_read": s.articles,
        "articles_fetched": s.fetched,
        "from_cache": s.from_cache,
        "transport_failures": s.transport,
        "seconds": dg.MetadataValue.float(round(s.seconds, 3)),
        "cpu_seconds": dg.MetadataValue.float(round(s.cpu_seconds, 3)),
    }


@dg.asset(
    deps=["probe_candidates", "pending_releases"],
    partitions_def=RANGES,
    group_name=ARTICLE_PASS_GROUP,
    description="What the article pass read of each release: names, passwords, inner names.",
)
def release_probes(
    context: dg.AssetExecutionContext,
    config: ProbeConfig,
    catalog: CatalogResource,
    nntp: NNTPResource,
) -> dg.MaterializeResult:
    ref = parse_range_key(context.partition_key)
    todo = spans_within(catalog.url, ref.group, ref.first, ref.last)
    source: Any
    pool = None
    if config.bodies:
        from pipelines.articles.store import open_bodies

        store = open_bodies(config.bodies)
        if store is None:
            raise dg.Failure(description=f"no stored bodies under {config.bodies}")
        source = StoreSource(store)
    else:
        connections = config.connections or nntp.account_connections()
        pool = nntp.body_pools(connections, catalog.url)
        source = PoolSource(pool)
    try:
        summary = probe_catalog(
            catalog.url, source, only=todo, limit=config.limit or None,
        )  # fmt: skip
    finally:
        if pool is not None:
            pool.close()
    context.log.info(summary.text())
    return dg.MaterializeResult(metadata=_metadata(summary))


probe_job = dg.define_asset_job(
    "probe_job",
    selection=dg.AssetSelection.assets(release_probes),
    description="Probe (group, range) partitions: the article pass.",
    tags=job_tags(PROBE),
)


@dg.sensor(
    job=probe_job, minimum_interval_seconds=60, default_status=dg.DefaultSensorStatus.RUNNING
)
def probe_sensor(
    context: dg.SensorEvaluationContext, catalog: CatalogResource, nntp: NNTPResource
) -> dg.SensorResult | dg.SkipReason:
    """Requests a probe of each range whose candidates wait (new, or left waiting)."""
    if not nntp.configured():  # its runs read articles from the news server: none to ask
        return dg.SkipReason("no news server configured")
    keys = set(context.instance.get_dynamic_partitions(RANGES.name or "ranges"))
    fs, _ = open_fs(catalog.url)
    requests = []
    for span in spans(catalog.url):
        key = range_key(RangeRef(span.group, span.first, span.last))
        if key not in keys or not due(catalog.url, span):
            continue
        probes_path, _ = output_paths(catalog.url, span.group, span.first, span.last)
        stamp = str(fs.info(span.candidates).get("mtime", ""))
        if fs.exists(probes_path):  # left waiting: again after its last probe
            stamp += "@" + str(fs.info(probes_path).get("mtime", ""))
        requests.append(dg.RunRequest(partition_key=key, run_key=f"probe@{key}@{stamp}"))
    return dg.SensorResult(run_requests=requests)
