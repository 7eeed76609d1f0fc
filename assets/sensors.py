"""Sensors: the corpus grows partitions; each group's next range gets a run.

- `corpus_sensor` adds a range partition when its range.json appears and says complete
  (an incomplete range gets none until it is), and a group partition for each new group.
- `index_sensor` asks, per group, for the first range that needs indexing: never
  indexed, or stale. A range is stale when it was indexed under other rules and a rule
  that changed fired in it (its `rule_counts`) or may fire there now (a garbage
  signature added for its group), or when a setting that shapes every release changed,
  or when the group's previous range was indexed again after it (the window it started
  from changed). It asks only when the
  previous range is done and no run of the group is queued or running, so a group's
  ranges run one at a time, in article order; groups run side by side.

The rules of earlier versions are kept in the sensor's cursor, to tell what changed.
"""

import json
from collections.abc import Mapping
from typing import Any

import dagster as dg

from assets.jobs import index_job
from assets.partitions import GROUPS, RANGES, parse_range_key, range_key, ranges_by_group
from assets.resources import CatalogResource, CorpusResource, RulesResource
from pipelines.catalog.partitions import list_group as list_files
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.index.rules import Rules
from pipelines.index.snapshot import has_snapshot

GROUP_TAG = "usenet-indexer/group"


def new_partitions(
    corpus: CorpusResource, known_ranges: set[str], known_groups: set[str]
) -> tuple[list[str], list[str]]:
    """Range keys of complete ranges and group names the instance does not have yet."""
    reader = corpus.reader()
    ranges, groups = [], []
    for group in reader.groups():
        if group not in known_groups:
            groups.append(group)
        for info in reader.ranges(group):
            key = range_key(info.ref)
            if info.complete and key not in known_ranges:
                ranges.append(key)
    return ranges, groups


@dg.sensor(minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING)
def corpus_sensor(context: dg.SensorEvaluationContext, corpus: CorpusResource) -> dg.SensorResult:
    """Adds partitions for complete ranges and new groups of the corpus."""
    known_ranges = set(context.instance.get_dynamic_partitions(RANGES.name or "ranges"))
    known_groups = set(context.instance.get_dynamic_partitions(GROUPS.name or "groups"))
    ranges, groups = new_partitions(corpus, known_ranges, known_groups)
    requests = []
    if ranges:
        requests.append(RANGES.build_add_request(ranges))
    if groups:
        requests.append(GROUPS.build_add_request(groups))
    return dg.SensorResult(dynamic_partitions_requests=requests)


def stale_reason(
    old: dict[str, Any] | None, new: dict[str, Any], group: str, fired: set[str]
) -> str | None:
    """Why a range of `group` indexed under rules `old` must be redone under `new`.

    `fired` is the set of rules that dropped lines in the range. None: still good.
    """
    if old is None:
        return "indexed under rules this instance has not seen"
    changed = {k for k in set(old) | set(new) if old.get(k) != new.get(k)} - {"version"}
    if not changed:
        return "the rule set's version moved"
    for setting in sorted(changed):
        if setting == "garbage":
            added = [g for g in new.get("garbage", []) if g not in old.get("garbage", [])]
            removed = [g for g in old.get("garbage", []) if g not in new.get("garbage", [])]
            if any(g.get("group", "") in ("", group) for g in added):
                return "a garbage signature that may match here was added"
            if removed and "garbage_signature" in fired:
                return "a garbage signature that fired here was removed"
        elif setting == "sample_every":
            if fired:
                return "the sampling of drops changed where rules fired"
        else:
            # timings, priorities, album and batch limits shape every release
            return f"rule setting {setting} changed"
    return None


def _read(fs: Any, path: str, columns: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = read_parquet(fs, path, columns).to_pylist()
    return rows


def group_state(catalog: str, group: str) -> tuple[dict[int, dict[str, Any]], dict[int, set[str]]]:
    """Per range first article: its `ranges` row, and the rules that dropped lines in it."""
    fs, root = open_fs(catalog)
    indexed: dict[int, dict[str, Any]] = {}
    for f in list_files(fs, root, "ranges", group):
        for row in _read(fs, f.path, ["range_first", "rules_version", "indexed_at"]):
            indexed[int(row["range_first"])] = row
    fired: dict[int, set[str]] = {}
    for f in list_files(fs, root, "rule_counts", group):
        for row in _read(fs, f.path, ["range_first", "rule", "count"]):
            if row["count"]:
                fired.setdefault(int(row["range_first"]), set()).add(str(row["rule"]))
    return indexed, fired


def next_range(
    catalog: str,
    refs: list[RangeRef],
    rules: Rules,
    known_rules: dict[str, dict[str, Any]],
) -> tuple[RangeRef | None, str, int]:
    """The group's first range that needs indexing, why, and when it was last indexed.

    (None, "", 0) when every range is done.
    """
    if not refs:
        return None, "", 0
    indexed, fired = group_state(catalog, refs[0].group)
    version = rules.fingerprint
    current = rules.to_json()
    prev_at = 0
    for ref in refs:
        row = indexed.get(ref.first)
        done = row is not None and has_snapshot(catalog, ref.group, ref.first, ref.last)
        if not done or row is None:
            return ref, "not indexed", int(row["indexed_at"]) if row else 0
        stamp = int(row["indexed_at"])
        if stamp < prev_at:
            return ref, "the previous range was indexed again after it", stamp
        if row["rules_version"] != version:
            old = known_rules.get(str(row["rules_version"]))
            why = stale_reason(old, current, ref.group, fired.get(ref.first, set()))
            if why is not None:
                return ref, f"{why} ({row['rules_version']} -> {version})", stamp
        prev_at = stamp
    return None, "", 0


IN_FLIGHT = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def busy_groups(instance: dg.DagsterInstance, exclude_run: str = "") -> dict[str, str]:
    """Group -> id of a queued or running run that indexes some of its ranges."""
    keys = list(instance.get_dynamic_partitions(RANGES.name or "ranges"))
    busy: dict[str, str] = {}
    for record in instance.get_run_records(dg.RunsFilter(statuses=IN_FLIGHT)):
        run = record.dagster_run
        if run.run_id == exclude_run:
            continue
        for key in run_range_keys(run.tags, keys):
            busy.setdefault(parse_range_key(key).group, run.run_id)
        if GROUP_TAG in run.tags:
            busy.setdefault(run.tags[GROUP_TAG], run.run_id)
    return busy


def run_range_keys(tags: Mapping[str, str], keys: list[str]) -> list[str]:
    """The range keys a run covers: its partition, or every key of its partition range."""
    if tags.get("dagster/partition", "") in keys:
        return [tags["dagster/partition"]]
    start = tags.get("dagster/asset_partition_range_start", "")
    end = tags.get("dagster/asset_partition_range_end", "")
    if start in keys and end in keys:
        return keys[keys.index(start) : keys.index(end) + 1]
    return []


@dg.sensor(
    job=index_job, minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.STOPPED
)
def index_sensor(
    context: dg.SensorEvaluationContext,
    catalog: CatalogResource,
    rules: RulesResource,
) -> dg.SensorResult:
    """Requests each group's next range to index (new or stale), one run per group."""
    rule_set = rules.load()
    known: dict[str, dict[str, Any]] = json.loads(context.cursor) if context.cursor else {}
    known[rule_set.fingerprint] = rule_set.to_json()
    keys = context.instance.get_dynamic_partitions(RANGES.name or "ranges")
    busy = busy_groups(context.instance)
    requests = []
    for group, refs in ranges_by_group(keys).items():
        if group in busy:
            continue
        ref, why, stamp = next_range(catalog.url, refs, rule_set, known)
        if ref is None:
            continue
        key = range_key(ref)
        context.log.info(f"{key}: {why}")
        requests.append(
            dg.RunRequest(
                partition_key=key,
                # one request per range, rule set and earlier indexing of it
                run_key=f"{key}@{rule_set.fingerprint}@{stamp}",
                tags={GROUP_TAG: group},
            )
        )
    return dg.SensorResult(run_requests=requests, cursor=json.dumps(known, sort_keys=True))
