"""Capture in Dagster: the tail and history jobs as real runs against serve-nntp.

The tail schedule and the history sensor are evaluated on the run's instance, their run
requests executed; the index runs that consume ranges are the index sensor's. What the
`corpus` asset records per group is checked against the corpus and the catalog.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from assets import build_defs
from assets.capture import CORPUS, last_standing
from assets.launch import prepare_home
from assets.partitions import GROUPS, RANGES
from assets.resources import (
    CaptureResource,
    CatalogResource,
    CorpusResource,
    NNTPResource,
    RulesResource,
)
from assets.schedules import tail_schedule
from assets.sensors import history_sensor, index_sensor
from assets.tags import HISTORY, KIND_TAG, PRIORITY_TAG, TAIL
from pipelines.index.tail import read_log
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.dagster_runs import folder_instance
from tests.fixtures.sample_corpus import write_sample_corpus
from tests.test_capture import assert_identical

pytestmark = pytest.mark.timeout(300)
ONE, TWO = "alt.binaries.one", "alt.binaries.two"
GROUPS_SERVED = {ONE: (5, 4321), TWO: (1000, 2900)}
RANGE, CHUNK = 1000, 250


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, list[bytes]]]:
    root = str(tmp_path_factory.mktemp("served"))
    return root, write_sample_corpus(root, GROUPS_SERVED, RANGE, CHUNK)


@pytest.fixture
def server(served: tuple[str, dict[str, list[bytes]]]) -> Iterator[NNTPServer]:
    opts = ServerOptions(user="reader", password="secret")
    with NNTPServer(served[0], options=opts) as srv:
        yield srv


class Setup:
    def __init__(self, tmp: Path, port: int) -> None:
        self.corpus, self.catalog = str(tmp / "corpus"), str(tmp / "catalog")
        self.resources: dict[str, Any] = {
            "corpus": CorpusResource(url=self.corpus),
            "catalog": CatalogResource(url=self.catalog),
            "rules": RulesResource(),
            "nntp": NNTPResource(host="127.0.0.1", port=port, user="reader", connections=4),
            "capture": CaptureResource(
                groups=[ONE, TWO], range_size=RANGE, chunk_size=CHUNK, headroom=0, ahead=2
            ),
        }
        self.defs = build_defs(resource_overrides=self.resources, executor=dg.in_process_executor)

    def run(self, instance: dg.DagsterInstance, job: str, **kw: Any) -> dg.ExecuteInProcessResult:
        result = self.defs.resolve_job_def(job).execute_in_process(instance=instance, **kw)
        assert result.success
        return result

    def history_tick(self, instance: dg.DagsterInstance) -> dg.RunRequest | dg.SkipReason:
        with dg.build_sensor_context(instance=instance, resources=self.resources) as context:
            return history_sensor(context)  # type: ignore[return-value]

    def index_all(self, instance: dg.DagsterInstance) -> int:
        """The index sensor's requests run until none is left; how many ranges ran."""
        ran = 0
        while True:
            with dg.build_sensor_context(instance=instance, resources=self.resources) as context:
                result = index_sensor(context)
            assert isinstance(result, dg.SensorResult)
            requests = list(result.run_requests or [])
            if not requests:
                return ran
            for request in requests:
                self.run(instance, "index_job", partition_key=request.partition_key)
                ran += 1


def corpus_materializations(result: dg.ExecuteInProcessResult) -> dict[str, dict[str, Any]]:
    out = {}
    for event in result.get_asset_materialization_events():
        m = event.materialization
        if m.asset_key == CORPUS and m.partition is not None:
            out[m.partition] = {k: v.value for k, v in m.metadata.items()}
    return out


def test_tail_first_then_history_ahead_of_the_index(
    served: tuple[str, dict[str, list[bytes]]],
    server: NNTPServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("USENET_INDEXER_NNTP_PASSWORD", "secret")
    setup = Setup(tmp_path, server.port)
    one, two = server.corpus.groups[ONE], server.corpus.groups[TWO]
    one.visible_high, two.visible_high = 3600, 2300
    with dg.DagsterInstance.ephemeral() as instance:
        # before any tail pass the history sensor waits for it
        skip = setup.history_tick(instance)
        assert isinstance(skip, dg.SkipReason) and "the tail goes first" in str(skip.skip_message)

        tail = setup.run(instance, "tail_job")
        assert tail.dagster_run.tags[KIND_TAG] == TAIL and tail.dagster_run.tags[PRIORITY_TAG]
        standing = corpus_materializations(tail)
        assert set(standing) == {ONE, TWO}
        assert standing[ONE]["stored_high"] == 3600 and standing[ONE]["tail_from"] == 3000
        assert standing[ONE]["growing"] == "3000-3999" and standing[ONE]["history_left"] == 3
        assert standing[ONE]["server_high"] == 3600 and standing[ONE]["indexed_through"] == -1
        assert set(instance.get_dynamic_partitions(GROUPS.name or "groups")) == {ONE, TWO}
        # nothing new on the server: the next pass records no materialization
        assert corpus_materializations(setup.run(instance, "tail_job")) == {}

        # history, at most two ranges ahead of each group's index
        request = setup.history_tick(instance)
        assert isinstance(request, dg.RunRequest)
        history = setup.run(instance, "history_job", run_config=request.run_config)
        assert history.dagster_run.tags[KIND_TAG] == HISTORY
        standing = corpus_materializations(history)
        assert standing[ONE]["waiting_ranges"] == 2 and standing[ONE]["history_left"] == 1
        assert standing[TWO]["waiting_ranges"] == 1 and standing[TWO]["history_left"] == 0
        ranges = set(instance.get_dynamic_partitions(RANGES.name or "ranges"))
        assert ranges == {f"{ONE}|0-999", f"{ONE}|1000-1999", f"{TWO}|1000-1999"}
        skip = setup.history_tick(instance)
        assert isinstance(skip, dg.SkipReason)
        assert f"{ONE}: 2 ranges ahead of the index" in str(skip.skip_message)

        # the index takes them: room for group one's last history range
        assert setup.index_all(instance) == 3
        request = setup.history_tick(instance)
        assert isinstance(request, dg.RunRequest)
        assert request.run_config["ops"]["capture_history"]["config"]["groups"] == [ONE]
        setup.run(instance, "history_job", run_config=request.run_config)
        last = last_standing(instance, ONE)
        assert last is not None and last["history_left"] == 0 and last["waiting_ranges"] == 1
        skip = setup.history_tick(instance)
        assert isinstance(skip, dg.SkipReason) and "history stored" in str(skip.skip_message)

        # the server grows to its end: the tail completes its ranges, the index follows
        one.visible_high = two.visible_high = None
        setup.run(instance, "tail_job")
        assert setup.index_all(instance) == 2  # group one's 2000-2999 and 3000-3999
        setup.run(instance, "tail_job")  # records where the index stands now
        last = last_standing(instance, ONE)
        assert last is not None
        assert (last["indexed_through"], last["waiting_ranges"]) == (3999, 0)
        assert last["stored_high"] == last["server_high"] == server.corpus.groups[ONE].high
        assert last["growing"] == "4000-4999"
        assert last["articles_not_indexed"] == last["stored_high"] - 3999
        # and the tail job indexed what it stored of the growing range: searchable now
        tails = sorted(Path(setup.catalog, "releases", ONE).glob("tail-4000-*.parquet"))
        assert len(tails) == 1
        assert read_log(setup.catalog, ONE, 4000, 4999).cursor == last["stored_high"]
    assert_identical(setup.corpus, served[1])


def test_the_server_comes_from_the_environment_and_never_a_password_from_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "password" not in NNTPResource.model_fields
    monkeypatch.setenv("USENET_INDEXER_NNTP_HOST", "news.example.com")
    monkeypatch.setenv("USENET_INDEXER_NNTP_TLS", "implicit")
    monkeypatch.setenv("USENET_INDEXER_NNTP_USER", "me")
    monkeypatch.setenv("USENET_INDEXER_NNTP_CONNECTIONS", "20")
    monkeypatch.delenv("USENET_INDEXER_NNTP_PORT", raising=False)
    monkeypatch.delenv("USENET_INDEXER_NNTP_PASSWORD", raising=False)
    nntp = NNTPResource()
    with pytest.raises(ValueError, match="USENET_INDEXER_NNTP_PASSWORD is not set"):
        nntp.provider(4)
    monkeypatch.setenv("USENET_INDEXER_NNTP_PASSWORD", "pw")
    provider = nntp.provider(4)
    assert (provider.host, provider.port, provider.tls) == ("news.example.com", 563, "implicit")
    assert (provider.user, provider.password, provider.connections) == ("me", "pw", 4)
    # the tail's share of the account, and the rest for history
    capture = CaptureResource(tail_connections=3)
    assert nntp.account_connections() == 20
    assert (capture.connections("tail", 20), capture.connections("history", 20)) == (3, 17)
    monkeypatch.setenv("USENET_INDEXER_GROUPS", "a.b.one, a.b.two")
    assert capture.group_list() == ["a.b.one", "a.b.two"]


def test_the_schedule_and_the_sensor_wait_for_their_run_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("USENET_INDEXER_NNTP_HOST", raising=False)
    monkeypatch.delenv("USENET_INDEXER_GROUPS", raising=False)
    setup = Setup(tmp_path, 1)
    with folder_instance(prepare_home(tmp_path / "home")) as instance:
        with dg.build_schedule_context(instance=instance, resources=setup.resources) as context:
            assert isinstance(tail_schedule(context), dg.RunRequest)
            for job, kind in (("tail_job", TAIL), ("history_job", HISTORY)):
                status = dg.DagsterRunStatus.STARTED
                run = dg.DagsterRun(job_name=job, status=status, tags={KIND_TAG: kind})
                instance.add_run(run)
            skip = tail_schedule(context)
        assert isinstance(skip, dg.SkipReason)
        assert "still queued or running" in str(skip.skip_message)
        skip = setup.history_tick(instance)
        assert isinstance(skip, dg.SkipReason) and "queued or running" in str(skip.skip_message)
        # without a server or groups, the schedule only skips
        unset = dict(setup.resources, nntp=NNTPResource(), capture=CaptureResource())
        with dg.build_schedule_context(instance=instance, resources=unset) as context:
            skip = tail_schedule(context)
        assert isinstance(skip, dg.SkipReason) and "no news server" in str(skip.skip_message)


def test_the_run_queue_keeps_a_slot_for_the_tail(tmp_path: Path) -> None:
    """The dagster.yaml the main job writes: every kind limited, the tail's slot kept."""

    from assets.tags import INDEX, KIND_LIMITS, MAINTENANCE, MAX_RUNS, PRIORITY, PROBE

    home = prepare_home(tmp_path / "home")
    with folder_instance(home) as instance:
        assert instance.run_monitoring_enabled
        queue = instance.get_concurrency_config().run_queue_config
        assert queue is not None and queue.max_concurrent_runs == MAX_RUNS
        limits = {
            str(limit["value"]): int(limit["limit"])
            for limit in queue.tag_concurrency_limits
            if limit["key"] == KIND_TAG
        }
    assert limits == KIND_LIMITS
    assert sum(n for kind, n in limits.items() if kind != TAIL) == MAX_RUNS - 1
    assert PRIORITY[TAIL] > PRIORITY[INDEX] >= PRIORITY[MAINTENANCE] > PRIORITY[HISTORY]
    defs = build_defs()
    for job, kind in (("tail_job", TAIL), ("history_job", HISTORY), ("index_job", INDEX),
                      ("compact_job", MAINTENANCE), ("catalog_job", MAINTENANCE),
                      ("probe_job", PROBE)):  # fmt: skip
        tags = defs.resolve_job_def(job).tags
        assert tags[KIND_TAG] == kind and tags[PRIORITY_TAG] == str(PRIORITY[kind])
