"""Sensors: the corpus grows partitions; each group's next range gets a run; history
capture runs while groups have room ahead of their index.

- `corpus_sensor` adds a range partition when its range.json appears and says complete
  (an incomplete range gets none until it is: `partitions.registrable`), and a group
  partition for each new group; on a corpus of several backbones, each group's primary's
  ranges (another backbone's, registered before the primary came, are removed). Capture
  runs register what they store themselves; this sensor finds what other writers (the
  CLI's capture, a copied corpus) put there.
- `index_sensor` asks, per group, for the first range that is due (never indexed, or
  stale), as `pipelines.index.schedule` says, the answer `replay` gets on the same
  catalog. It asks only when no run of the group is queued or running, so a group's
  ranges run one at a time, in article order; groups run side by side. A range whose
  last run did not get to finish (killed, lost: `watchdog.interrupted`) is asked for
  again; one whose run failed by itself is not (it would fail the same way). A range
  its last run left waiting for another backbone's capture (`WAITS_TAG`) is asked for
  again once `WAIT_RETRY_SECONDS` have passed.
- `history_sensor` asks for a history capture of the groups whose tail has begun, whose
  history is not all stored, and which are fewer than `ahead` ranges ahead of their index
  (all of them under `disk_cap`), when no history run is queued or running.
"""

import time
from collections.abc import Mapping

import dagster as dg

from assets.capture import last_standing
from assets.jobs import index_job
from assets.partitions import (
    GROUPS,
    RANGES,
    foreign_partitions,
    new_partitions,
    parse_range_key,
    range_key,
    ranges_by_group,
    register_partitions,
)
from assets.resources import (
    CaptureResource,
    CatalogResource,
    CorpusResource,
    NNTPResource,
    RulesResource,
)
from assets.tags import GROUP_TAG, HISTORY, IN_FLIGHT, WAITS_TAG, in_flight
from assets.watchdog import interrupted
from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.schedule import parse_size
from pipelines.capture.standing import standing
from pipelines.index.backbones import CorpusBackbones
from pipelines.index.schedule import GroupSchedule
from pipelines.rules.current import catalog_rules

__all__ = ["GROUP_TAG", "IN_FLIGHT", "new_partitions", "register_partitions"]

# after a failed history run, the sensor waits this long before asking again
HISTORY_BACKOFF_SECONDS = 300
# after a run left a range waiting for another backbone, the sensor waits this long
WAIT_RETRY_SECONDS = 300


@dg.sensor(minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING)
def corpus_sensor(
    context: dg.SensorEvaluationContext, corpus: CorpusResource
) -> dg.SensorResult | dg.SkipReason:
    """Adds partitions for complete ranges and new groups of the corpus."""
    known_ranges = set(context.instance.get_dynamic_partitions(RANGES.name or "ranges"))
    known_groups = set(context.instance.get_dynamic_partitions(GROUPS.name or "groups"))
    try:
        backbones = corpus.backbones()
        ranges, groups = new_partitions(corpus, known_ranges, known_groups, backbones)
        foreign = foreign_partitions(corpus, known_ranges, backbones)
    except FileNotFoundError as exc:  # before the first capture stored anything
        return dg.SkipReason(str(exc))
    requests: list[dg.AddDynamicPartitionsRequest | dg.DeleteDynamicPartitionsRequest] = []
    if foreign:  # another backbone's ranges, registered before the group's primary came
        requests.append(RANGES.build_delete_request(foreign))
    if ranges:
        requests.append(RANGES.build_add_request(ranges))
    if groups:
        requests.append(GROUPS.build_add_request(groups))
    return dg.SensorResult(dynamic_partitions_requests=requests)


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
    job=index_job, minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING
)
def index_sensor(
    context: dg.SensorEvaluationContext,
    catalog: CatalogResource,
    rules: RulesResource,
) -> dg.SensorResult:
    """Requests each group's next range to index (new or stale), one run per group."""
    # with the catalog's operator rules: their version is in each request's run key
    rule_set = catalog_rules(catalog.url, rules.load())
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
        run_id, why = interrupted_run(context.instance, key)
        waited, ago = waited_run(context.instance, key)
        if waited and ago < WAIT_RETRY_SECONDS:
            context.log.info(f"{key}: waits for another backbone (run {waited})")
            continue
        context.log.info(f"{key}: {due.why}" + (f" (its run {run_id}: {why})" if why else ""))
        # one request per range, rule set, earlier indexing of it and of the range before
        # it (whose window it starts from), run of it that did not get to finish, and run
        # that left it waiting
        run_key = f"{key}@{rule_set.fingerprint}@{due.indexed_at}@{due.after}"
        run_key = f"{run_key}@redo-{run_id}" if why else run_key
        requests.append(
            dg.RunRequest(
                partition_key=key,
                run_key=f"{run_key}@after-{waited}" if waited else run_key,
                tags={GROUP_TAG: group},
            )
        )
    return dg.SensorResult(run_requests=requests)


def interrupted_run(instance: dg.DagsterInstance, key: str) -> tuple[str, str]:
    """(id, why) of the range's last run when it did not get to finish (killed, lost,
    never started), else ("", "")."""
    records = instance.get_run_records(dg.RunsFilter(tags={"dagster/partition": key}), limit=1)
    if records:
        run = records[0].dagster_run
        why = interrupted(instance, run)
        if why:
            return run.run_id, why
    return "", ""


def waited_run(instance: dg.DagsterInstance, key: str) -> tuple[str, float]:
    """(id, seconds since it ended) of the range's last run when it left the range waiting
    for another backbone, else ("", 0.0)."""
    records = instance.get_run_records(dg.RunsFilter(tags={"dagster/partition": key}), limit=1)
    if records and key in records[0].dagster_run.tags.get(WAITS_TAG, "").split(","):
        return records[0].dagster_run.run_id, time.time() - (records[0].end_time or time.time())
    return "", 0.0


@dg.sensor(
    job_name="history_job",  # by name: the job binds its resources in the definitions
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def history_sensor(
    context: dg.SensorEvaluationContext,
    nntp: NNTPResource,
    capture: CaptureResource,
    corpus: CorpusResource,
    catalog: CatalogResource,
) -> dg.RunRequest | dg.SkipReason:
    """Requests a history capture of the groups with room ahead of their index."""
    if not nntp.configured() or not capture.group_list():
        return dg.SkipReason("no news server or no group configured")
    instance = context.instance
    if in_flight(instance, HISTORY):
        return dg.SkipReason("a history capture is queued or running")
    failed = instance.get_run_records(
        dg.RunsFilter(job_name="history_job", statuses=[dg.DagsterRunStatus.FAILURE]),
        limit=1,
    )
    # a capture that failed (the server refused, the disk is full) is not asked for again
    # at once; a lost one (its process killed) is: the next pass resumes from the corpus
    if (
        failed
        and not interrupted(instance, failed[0].dagster_run)
        and time.time() - (failed[0].end_time or 0) < HISTORY_BACKOFF_SECONDS
    ):
        return dg.SkipReason("the last history capture failed: waiting before the next")
    backbones: CorpusBackbones | None = None
    indexed = IndexedRanges(catalog.url)
    room, waiting_bytes, why = [], 0, []
    for group in capture.group_list():
        last = last_standing(instance, group)
        if last is None or int(last.get("tail_from", -1)) < 0:
            why.append(f"{group}: the tail goes first")
            continue
        try:
            backbones = backbones or corpus.backbones()
        except FileNotFoundError as exc:  # nothing stored yet
            return dg.SkipReason(str(exc))
        reader = corpus.group_reader(backbones, group)  # its primary backbone's corpus
        low = int(last.get("server_low", -1))
        st = standing(reader, indexed, group, capture.range_size, low if low >= 0 else None)
        waiting_bytes += st.waiting_bytes
        if st.history_left == 0:
            why.append(f"{group}: history stored")
        elif st.waiting >= capture.ahead:
            why.append(f"{group}: {st.waiting} ranges ahead of the index")
        else:
            room.append(group)
    if room and waiting_bytes >= parse_size(capture.disk_cap):
        return dg.SkipReason(f"{waiting_bytes / 1e6:,.0f} MB captured and not indexed")
    if not room:
        return dg.SkipReason("; ".join(why) or "nothing to capture")
    return dg.RunRequest(
        run_config={"ops": {"capture_history": {"config": {"groups": room}}}},
    )
