"""Assets: the header pass per (group, range), compaction per group, and the catalog.

Each asset is a thin wrapper around one stage in pipelines/: `index_groups` (which calls
`index_range` per range), `compact_group`, and the catalog's DuckDB views. What they record as
metadata is what an operator reads in the UI.
"""

from typing import Any

import dagster as dg

from assets.checks import CHECK_SPECS, check_results
from assets.partitions import GROUPS, RANGES, range_key, ranges_by_group
from assets.resources import CatalogResource, CorpusResource, RulesResource
from assets.sensors import busy_groups
from assets.tags import WAITS_TAG
from assets.watchdog import lease
from pipelines.catalog.compact import DEFAULT_TARGET_BYTES, compact_group
from pipelines.corpus.layout import RangeRef
from pipelines.index.range_indexer import RangeResult
from pipelines.index.runs import GroupJob, RangeWaits, index_groups
from pipelines.index.schedule import OutOfOrder, RangeTotals

HEADER_PASS_GROUP = "header_pass"

# One asset per output of the header pass, all written by one step per run.
HEADER_PASS_OUTPUTS = {
    "releases": "Release versions (finished and provisional) of each range, one row each.",
    "release_files": "Each release version's files and segment lists (the chunk store).",
    "pending_releases": "Uploads with only random file names, waiting for the article pass.",
    "probe_candidates": "Per release, the few articles the article pass should read.",
    "rule_counts": "Per range and rule, how many overview lines the rule dropped.",
    "rule_samples": "About 1 % of each rule's drops kept in full, to judge the rule.",
    "rule_hits": "Per range, operator rule and day, the headers each rule matched and dropped.",
    "ranges": "One row per indexed range: what the header pass did and under which rules.",
    "window_snapshots": "The carried window after each range, read by the group's next range.",
}


class HeaderPassConfig(dg.Config):
    parallel_groups: int = 2  # groups indexed side by side when a run holds several


class CompactionConfig(dg.Config):
    target_bytes: int = DEFAULT_TARGET_BYTES


def _range_metadata(r: RangeResult) -> dict[str, Any]:
    return _figures(
        r,
        files=r.files,
        segments_kept=r.segments_kept,
        seconds=dg.MetadataValue.float(round(r.seconds, 3)),
        bytes_written=sum(r.bytes_written.values()),
        rules_version=r.rules_version,
    )


def _figures(figures: RangeResult | RangeTotals, **more: Any) -> dict[str, Any]:
    """The metadata a range and a run's totals both show, `more`, and the drops by rule."""
    meta: dict[str, Any] = {
        "headers": figures.headers,
        "releases_finished": figures.releases_finished,
        "releases_provisional": figures.releases_provisional,
        "pending": figures.pending,
        "bad_lines": figures.bad_lines,
        "headers_per_second": dg.MetadataValue.float(round(figures.headers_per_second, 1)),
        **more,
    }
    meta.update({f"drops/{rule}": n for rule, n in sorted(figures.drops.items())})
    return meta


@dg.multi_asset(
    specs=[
        # skippable: a run whose range waits for another backbone materializes nothing
        dg.AssetSpec(name, description=text, group_name=HEADER_PASS_GROUP, skippable=True)
        for name, text in HEADER_PASS_OUTPUTS.items()
    ],
    check_specs=CHECK_SPECS,
    partitions_def=RANGES,
    # A backfill of many ranges is one run: the step orders each group's ranges itself.
    backfill_policy=dg.BackfillPolicy.single_run(),
    can_subset=False,
)
def header_pass(
    context: dg.AssetExecutionContext,
    config: HeaderPassConfig,
    corpus: CorpusResource,
    catalog: CatalogResource,
    rules: RulesResource,
) -> Any:
    """Index the run's (group, range) partitions: each group in article order."""
    with lease(context):  # a run killed mid-range is found and its group freed (watchdog)
        yield from _header_pass(context, config, corpus, catalog, rules)


def _header_pass(
    context: dg.AssetExecutionContext,
    config: HeaderPassConfig,
    corpus: CorpusResource,
    catalog: CatalogResource,
    rules: RulesResource,
) -> Any:
    rule_set = rules.load()
    by_group = ranges_by_group(context.partition_keys)
    # Two runs of one group at once would race for the carried window: refuse instead.
    busy = busy_groups(context.instance, exclude_run=context.run.run_id)
    clash = sorted(g for g in by_group if g in busy)
    if clash:
        raise dg.Failure(
            description="; ".join(
                f"{g} is being indexed by run {busy[g]}: a group's ranges run one at a time"
                for g in clash
            )
        )
    jobs = [
        GroupJob(corpus.url, catalog.url, rule_set, group, tuple(refs))
        for group, refs in by_group.items()
    ]
    single = len(context.partition_keys) == 1

    def log_range(r: RangeResult) -> None:
        key = range_key(RangeRef(r.group, r.first, r.last))
        context.log.info(
            f"{key}: {r.headers:,} headers, {r.releases_finished:,} releases finished, "
            f"{r.releases_provisional:,} provisional, {r.pending:,} pending "
            f"({r.headers_per_second:,.0f} headers/s)"
        )
        if not single:  # per-partition figures when one materialization covers many
            context.log_event(
                dg.AssetObservation(
                    asset_key="releases", partition=key, metadata=_range_metadata(r)
                )
            )

    results, stopped = index_groups(jobs, config.parallel_groups, log_range)
    failures = [(g, exc) for g, exc in stopped if not isinstance(exc, RangeWaits)]
    if waits := [exc for _, exc in stopped if isinstance(exc, RangeWaits)]:
        # skipped, not failed: the index sensor asks for the range again a while later
        for exc in waits:
            context.log.info(f"{range_key(exc.ref)}: not indexed yet: {exc}")
        keys = ",".join(range_key(exc.ref) for exc in waits)
        context.instance.add_run_tags(context.run.run_id, {WAITS_TAG: keys})
    if failures:
        raise dg.Failure(
            description="; ".join(f"{group}: {_failure(exc)}" for group, exc in failures),
            metadata={"ranges_indexed": len(results)},
        )
    refs = [RangeRef(r.group, r.first, r.last) for r in results]
    yield from check_results(catalog.url, refs)  # the checks' outputs are not optional
    if not results:
        return  # every range waits: nothing materialized
    totals = RangeTotals.of(results)
    for name in HEADER_PASS_OUTPUTS:
        table = "_window" if name == "window_snapshots" else name
        meta: dict[str, Any] = {
            "bytes_written": totals.bytes_written.get(table, 0),
            "rules_version": rule_set.fingerprint,
            "ranges": totals.ranges,
        }
        if name == "releases":
            meta.update(_range_metadata(results[0]) if single else _figures(totals))
        yield dg.MaterializeResult(asset_key=name, metadata=meta)


def _failure(exc: Exception) -> str:
    """What stopped a group, in partition keys."""
    if not isinstance(exc, OutOfOrder):
        return str(exc)
    key, before = range_key(exc.ref), range_key(exc.before)
    if exc.lost:
        return (
            f"cannot index {key}: {exc.lost}; materialize partition {before} again first "
            "(it writes a new one)"
        )
    return (
        f"cannot index {key}: the group's previous range, partition {before}, is not "
        "materialized yet; materialize it first (a group's ranges run in article order, "
        "each carrying the window of the one before)"
    )


@dg.asset(
    partitions_def=GROUPS,
    deps=[
        dg.AssetDep(name, partition_mapping=dg.AllPartitionMapping())
        for name in ("releases", "release_files", "pending_releases", "probe_candidates")
    ],
    group_name="catalog",
)
def compacted(
    context: dg.AssetExecutionContext, config: CompactionConfig, catalog: CatalogResource
) -> dg.MaterializeResult:
    """The group's catalog files merged into larger ones sorted by posting time."""
    with lease(context):
        result = compact_group(catalog.url, context.partition_key, target_bytes=config.target_bytes)
    # Damaged files are left as they were; redoing their ranges replaces them.
    (context.log.warning if result.damaged else context.log.info)(result.text())
    meta: dict[str, Any] = {
        "files_merged": result.files_merged,
        "seconds": result.seconds,
        "damaged_files": len(result.damaged),
    }
    for table, t in result.tables.items():
        meta[f"{table}/files"] = t.files_after
        meta[f"{table}/bytes"] = t.bytes_after
    return dg.MaterializeResult(metadata=meta)


@dg.asset(deps=[compacted], group_name="catalog")
def catalog_views(
    context: dg.AssetExecutionContext, catalog: CatalogResource
) -> dg.MaterializeResult:
    """The catalog's DuckDB views over every readable partition (the newest version of
    each release, counted per group; damaged partitions left out and named), which the
    server's status page also reads: its searches, feeds and pages answer from its search
    index and its NZB downloads from the `release_files` Parquet files."""
    from pipelines.catalog.views import CatalogViews

    with lease(context):
        views = CatalogViews(catalog.url)
    damaged = views.health.damaged()
    for d in damaged:
        context.log.warning(f"damaged partition left out: {d.path}: {d.problem}")
    con = views.con
    releases = con.execute("SELECT count(*) FROM releases").fetchone()
    versions = con.execute("SELECT count(*) FROM release_versions").fetchone()
    groups = con.execute('SELECT "group", releases FROM groups ORDER BY 1').fetchall()
    return dg.MaterializeResult(
        metadata={
            "releases": int(releases[0]) if releases else 0,
            "release_versions": int(versions[0]) if versions else 0,
            "files": {t: len(p) for t, p in views.files.items()},
            "groups": dg.MetadataValue.md(
                "\n".join(
                    ["| group | releases |", "|---|---|"] + [f"| {g} | {n} |" for g, n in groups]
                )
            ),
            "catalog": catalog.url,
            "damaged_partitions": len(damaged),
        }
    )
