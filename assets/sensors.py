"""Sensors: the corpus grows partitions; each group's next range gets a run.

- `corpus_sensor` adds a range partition when its range.json appears and says complete
  (an incomplete range gets none until it is), and a group partition for each new group.
- `index_sensor` asks, per group, for the first range that is due (never indexed, or
  stale), as `pipelines.index.schedule` says, the answer `replay` gets on the same
  catalog. It asks only when no run of the group is queued or running, so a group's
  ranges run one at a time, in article order; groups run side by side.
"""

from collections.abc import Mapping

import dagster as dg

from assets.jobs import index_job
from assets.partitions import GROUPS, RANGES, parse_range_key, range_key, ranges_by_group
from assets.resources import CatalogResource, CorpusResource, RulesResource
from pipelines.index.schedule import GroupSchedule

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
    keys = context.instance.get_dynamic_partitions(RANGES.name or "ranges")
    busy = busy_groups(context.instance)
    requests = []
    for group, refs in ranges_by_group(keys).items():
        if group in busy:
            continue
        due = GroupSchedule(catalog.url, refs, rule_set).next_due()
        if due is None:
            continue
        key = range_key(due.ref)
        context.log.info(f"{key}: {due.why}")
        requests.append(
            dg.RunRequest(
                partition_key=key,
                # one request per range, rule set, earlier indexing of it and of the range
                # before it (whose window it starts from)
                run_key=f"{key}@{rule_set.fingerprint}@{due.indexed_at}@{due.after}",
                tags={GROUP_TAG: group},
            )
        )
    return dg.SensorResult(run_requests=requests)
