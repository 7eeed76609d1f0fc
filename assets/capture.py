"""Capture in Dagster: the tail and history passes as ops, the corpus as a per-group asset.

`capture_tail` runs one tail pass over the configured groups (`pipelines.capture`, part
`tail`: from each group's tail mark up to the server's high mark, never held back by the
prefetch limits); `capture_history` one history pass over the groups it is given (part
`history`: below the tail mark, oldest first, each group at most `ahead` ranges past
what the catalog says is indexed, all of them under `disk_cap`). Both register the
partitions of the ranges and groups they stored, so the index sensor sees a completed
range on its next tick.

`corpus` (partitioned by group) is where capture and the index stand: each pass records,
per group whose standing changed, a materialization whose metadata holds the stored
high-water article, the server's marks, the tail's first article, the ranges captured,
growing, indexed and waiting (captured, not indexed: the prefetch's distance ahead), the
last article indexed without a gap, and the history still to fetch. The numbers plot
over time in the asset's page.

With a providers settings file whose header providers are on several backbones, a pass is
one capture per backbone, side by side, each into its backbone's corpus
(`pipelines.capture.backbones`, as `capture --providers` does; docs/BACKBONES.md); each
group's standing is its primary backbone's. A backbone that stops on an error fails the
run once the others are done.
"""

import dataclasses
from typing import Any

import dagster as dg
from pydantic import Field

from assets.partitions import GROUPS, register_partitions
from assets.resources import (
    CaptureResource,
    CatalogResource,
    CorpusResource,
    NNTPResource,
    RulesResource,
)
from assets.watchdog import lease
from pipelines.capture.backbones import BackboneCapture, by_backbone
from pipelines.capture.filled import consumed_by_backbone
from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.prefetch import Capture, CaptureError
from pipelines.capture.progress import CaptureSummary
from pipelines.capture.standing import Standing, standing
from pipelines.corpus.backbones import backbone_root
from pipelines.corpus.reader import CorpusReader
from pipelines.index.backbones import CorpusBackbones
from pipelines.index.schedule import OutOfOrder
from pipelines.index.tail import index_tail
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider

CORPUS = dg.AssetKey("corpus")
CAPTURE_GROUP = "capture"

corpus_asset = dg.AssetSpec(
    CORPUS,
    partitions_def=GROUPS,
    group_name=CAPTURE_GROUP,
    description="Each group's stored overview (docs/CORPUS.md), captured from the news "
    "server by the tail and history jobs: its metadata says where capture and the index "
    "stand in the group.",
)

# what a pass compares with the group's last materialization (the server's marks move
# with every post, so they alone are no reason to record one)
STANDING_KEYS = (
    "stored_high",
    "tail_from",
    "ranges_stored",
    "ranges_complete",
    "growing",
    "ranges_indexed",
    "indexed_through",
    "waiting_ranges",
    "history_left",
)


class HistoryConfig(dg.Config):
    groups: list[str] = Field(default_factory=list)  # empty: every configured group


def standing_metadata(st: Standing, cap: Capture | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "stored_high": st.stored_high,
        "tail_from": st.tail_first,
        "ranges_stored": st.ranges_stored,
        "ranges_complete": st.ranges_complete,
        "growing": ", ".join(st.growing) or "none",
        "ranges_indexed": st.ranges_indexed,
        "indexed_through": st.indexed_through,
        "waiting_ranges": st.waiting,
        "waiting_bytes": st.waiting_bytes,
        "history_left": st.history_left,
        # how far the index is behind capture, in articles (-1: no range indexed yet)
        "articles_not_indexed": (
            st.stored_high - st.indexed_through if st.indexed_through >= 0 else -1
        ),
    }
    bounds = cap.bounds_seen.get(st.group) if cap is not None else None
    if bounds is not None and cap is not None:
        meta["server_low"] = bounds.low
        meta["server_high"] = bounds.high
        meta["fetch_limit"] = cap.high_water.get(st.group, -1)
    return meta


def last_standing(instance: dg.DagsterInstance, group: str) -> dict[str, Any] | None:
    """The metadata of the group's last `corpus` materialization (values), or None."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=CORPUS, asset_partitions=[group]), limit=1
    ).records
    if not records or records[0].asset_materialization is None:
        return None
    return {k: v.value for k, v in records[0].asset_materialization.metadata.items()}


def report(
    context: dg.OpExecutionContext, cap: Capture, part: str, corpus: str, catalog: str,
    range_size: int, groups: list[str] | None = None,
) -> list[str]:  # fmt: skip
    """Record a `corpus` materialization for each group (of `groups`, else the capture's)
    whose standing changed."""
    reader, indexed = CorpusReader(corpus), IndexedRanges(catalog)
    recorded = []
    for group in cap.groups if groups is None else groups:
        bounds = cap.bounds_seen.get(group)
        if bounds is None:  # the pass stopped before GROUP answered: nothing new to say
            continue
        st = standing(reader, indexed, group, range_size, bounds.low)
        meta = standing_metadata(st, cap)
        before = last_standing(context.instance, group)
        if before is not None and all(before.get(k) == meta[k] for k in STANDING_KEYS):
            continue
        meta["pass"] = part
        context.log_event(dg.AssetMaterialization(asset_key=CORPUS, partition=group, metadata=meta))
        recorded.append(group)
    return recorded


def run_capture(
    context: dg.OpExecutionContext,
    part: str,
    groups: list[str],
    nntp: NNTPResource,
    capture: CaptureResource,
    corpus: CorpusResource,
    catalog: CatalogResource,
) -> CaptureSummary:
    """One pass of `part` over `groups`, the partitions registered, the standing recorded."""
    if not groups:
        raise dg.Failure(
            description="no group to capture: set USENET_INDEXER_GROUPS or the capture "
            "resource's groups"
        )
    try:
        several = backbone_providers(nntp, capture, part)
        if several:
            return run_backbones(context, part, groups, several, capture, corpus, catalog)
        provider = nntp.provider(capture.connections(part, nntp.account_connections()))
    except ValueError as exc:
        raise dg.Failure(description=str(exc)) from exc
    settings = capture.settings(part, len(groups))
    cap = Capture(
        ProviderPools([provider]), corpus.url, groups, settings, consumed=IndexedRanges(catalog.url)
    )
    instance = context.instance
    add_groups(instance, groups)
    error: CaptureError | None = None
    with lease(context):
        try:
            summary = cap.run()
        except CaptureError as exc:
            summary, error = exc.summary, exc
        context.log.info(summary.format())
        ranges, _ = register_partitions(instance, corpus)
        if ranges:
            context.log.info(f"new range partitions: {', '.join(ranges)}")
        report(context, cap, part, corpus.url, catalog.url, capture.range_size)
    if error is not None:
        raise dg.Failure(
            description=f"capture stopped: {error}",
            metadata={"chunks": summary.chunks, "lines": summary.lines},
        )
    return summary


def add_groups(instance: dg.DagsterInstance, groups: list[str]) -> None:
    """The group partitions of the groups a pass captures, before it stores anything."""
    known = set(instance.get_dynamic_partitions(GROUPS.name or "groups"))
    if new := [g for g in groups if g not in known]:
        instance.add_dynamic_partitions(GROUPS.name or "groups", new)


def backbone_providers(nntp: NNTPResource, capture: CaptureResource, part: str) -> list[Provider]:
    """The settings file's header providers, each with the part's share of its
    connections, when they are on several backbones; else none (one capture, as always)."""
    if nntp.server() or not nntp.settings_file():
        return []
    headers = nntp.provider_set().for_headers()
    if len(by_backbone(headers)) < 2:
        return []
    return [
        dataclasses.replace(p, connections=capture.connections(part, p.connections))
        for p in headers
    ]


def run_backbones(
    context: dg.OpExecutionContext,
    part: str,
    groups: list[str],
    providers: list[Provider],
    capture: CaptureResource,
    corpus: CorpusResource,
    catalog: CatalogResource,
) -> CaptureSummary:
    """One pass of `part` per backbone, side by side; the partitions registered, each
    group's standing recorded from its primary backbone's capture."""
    order = list(by_backbone(providers))
    runner = BackboneCapture(
        providers,
        corpus.url,
        groups,
        capture.settings(part, len(groups)),
        consumed=consumed_by_backbone(catalog.url, order),
    )
    add_groups(context.instance, groups)
    with lease(context):
        runs = runner.run()
        for run in runs:
            context.log.info(run.format())
        ranges, _ = register_partitions(context.instance, corpus)
        if ranges:
            context.log.info(f"new range partitions: {', '.join(ranges)}")
        backbones = CorpusBackbones(corpus.url)
        held = [g for g in groups if backbones.holders(g)]
        primary = {g: backbones.primary(catalog.url, g) for g in held}
        for name, cap in runner.captures.items():
            mine = [g for g in held if primary[g] == name]
            root = backbone_root(corpus.url, name)
            report(context, cap, part, root, catalog.url, capture.range_size, mine)
    if failed := [run for run in runs if run.error]:
        raise dg.Failure(
            description="; ".join(f"capture stopped: backbone {r.name}: {r.error}" for r in failed),
            metadata={
                "chunks": sum(r.summary.chunks for r in runs),
                "lines": sum(r.summary.lines for r in runs),
            },
        )
    return runs[0].summary


@dg.op
def capture_tail(
    context: dg.OpExecutionContext,
    nntp: NNTPResource,
    capture: CaptureResource,
    corpus: CorpusResource,
    catalog: CatalogResource,
) -> list[str]:
    """One tail pass: each configured group's newest articles, from its tail mark up;
    returns the groups, for the tail's indexing (`index_tails`)."""
    groups = capture.group_list()
    run_capture(context, "tail", groups, nntp, capture, corpus, catalog)
    return groups


@dg.op
def index_tails(
    context: dg.OpExecutionContext,
    groups: list[str],
    corpus: CorpusResource,
    catalog: CatalogResource,
    rules: RulesResource,
) -> None:
    """Index what the tail pass stored of each group's growing range
    (`pipelines.index.tail`): its releases searchable now, those still open provisional."""
    backbones = corpus.backbones()  # each group's tail from its primary backbone
    rule_set = rules.load()
    priority = rule_set.priority(backbones.groups())
    with lease(context):
        for group in groups:
            reader = corpus.group_reader(backbones, group)
            try:
                done = index_tail(reader, catalog.url, rule_set, priority, group)
            except OutOfOrder as exc:  # the range before it is not indexed yet
                context.log.info(f"tail {group}: waits for its history ({exc})")
                continue
            context.log.info(done.text())


@dg.op
def capture_history(
    context: dg.OpExecutionContext,
    config: HistoryConfig,
    nntp: NNTPResource,
    capture: CaptureResource,
    corpus: CorpusResource,
    catalog: CatalogResource,
) -> None:
    """One history pass: below each group's tail mark, up to the prefetch limits."""
    groups = config.groups or capture.group_list()
    run_capture(context, "history", groups, nntp, capture, corpus, catalog)
