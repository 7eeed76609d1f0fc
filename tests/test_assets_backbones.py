"""The Dagster path over a corpus of several backbones: partitions from each group's
primary, runs that fill from the others as `replay` does, a range that waits skipped and
asked for again (docs/BACKBONES.md, docs/DAGSTER.md)."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import dagster as dg
import pytest

from assets import build_defs
from assets import sensors as sensors_module
from assets.partitions import RANGES, range_key, ranges_by_group
from assets.resources import (
    CaptureResource,
    CatalogResource,
    CorpusResource,
    NNTPResource,
    RulesResource,
)
from assets.sensors import corpus_sensor, history_sensor, index_sensor
from assets.tags import WAITS_TAG
from bench.backbone_split import split_corpus
from pipelines.corpus.backbones import backbone_root
from pipelines.corpus.reader import CorpusReader
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.catalogs import catalog_files
from tests.corpora import generate
from tests.dagster_runs import in_process_defs, registered
from tests.test_backbone_live import _lines, _releases
from tests.test_backbones import CONFIG, SPLIT, _cut_b, _put_back, _ranges


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generated corpus split over backbones `a` and `b`, and `replay`'s catalog of it."""
    out = tmp_path_factory.mktemp("assets_backbones")
    gen = generate(out / "gen", CONFIG)
    corpus = out / "split"
    split_corpus(gen.corpus, str(corpus), SPLIT)
    catalog = out / "replayed"
    summary = replay(str(corpus), str(catalog), Rules(), progress=False, tail=False)
    assert summary.filled.get("filled", 0) > 100 and not summary.stopped, summary.text()
    return corpus, catalog


def _copy(split: tuple[Path, Path], tmp_path: Path) -> Path:
    corpus = tmp_path / "split"
    shutil.copytree(split[0], corpus)
    return corpus


def _run(defs: dg.Definitions, instance: dg.DagsterInstance, key: str) -> dg.ExecuteInProcessResult:
    job = defs.resolve_job_def("index_job")
    return job.execute_in_process(instance=instance, partition_key=key)


def _keys(instance: dg.DagsterInstance) -> list[str]:
    return list(instance.get_dynamic_partitions(RANGES.name or "ranges"))


def test_the_partitions_are_the_primarys_ranges(split: tuple[Path, Path], tmp_path: Path) -> None:
    corpus = _copy(split, tmp_path)
    assert CorpusReader(str(corpus)).groups() == []  # the root holds no group itself
    with registered(str(corpus), str(tmp_path / "catalog")) as instance:
        (group,) = ranges_by_group(_keys(instance))
        primary = CorpusReader(backbone_root(str(corpus), "a"))
        assert sorted(_keys(instance)) == sorted(range_key(r) for r in primary.range_refs(group))


def test_a_run_per_range_gives_replays_catalog(split: tuple[Path, Path], tmp_path: Path) -> None:
    corpus, replayed = _copy(split, tmp_path), split[1]
    catalog = tmp_path / "catalog"
    defs = in_process_defs(str(corpus), str(catalog))
    with registered(str(corpus), str(catalog)) as instance:
        for key in _keys(instance):
            result = _run(defs, instance, key)
            assert result.asset_materializations_for_node("header_pass"), key
    assert catalog_files(catalog) == catalog_files(replayed)


@pytest.mark.slow
def test_one_run_of_every_range_gives_replays_catalog(
    split: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, replayed = _copy(split, tmp_path), split[1]
    catalog = tmp_path / "catalog"
    defs = in_process_defs(str(corpus), str(catalog))
    with registered(str(corpus), str(catalog)) as instance:
        ordered = _keys(instance)
        result = defs.resolve_job_def("index_job").execute_in_process(
            instance=instance,
            tags={
                "dagster/asset_partition_range_start": ordered[0],
                "dagster/asset_partition_range_end": ordered[-1],
            },
        )
        assert result.success
    assert catalog_files(catalog) == catalog_files(replayed)


def _index_tick(instance: dg.DagsterInstance, catalog: Path) -> list[dg.RunRequest]:
    resources = {"catalog": CatalogResource(url=str(catalog)), "rules": RulesResource()}
    with dg.build_sensor_context(instance=instance, resources=resources) as context:
        result = index_sensor(context)
    assert isinstance(result, dg.SensorResult)
    return list(result.run_requests or [])


def test_a_range_that_waits_is_skipped_then_asked_for_again(
    split: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Backbone b still being captured short of the primary's newest range: its run
    indexes nothing and fails nothing; the sensor asks for it again a while later, and
    once b is stored past it the catalog is replay's."""
    corpus, replayed = _copy(split, tmp_path), split[1]
    last = _ranges(corpus / "@a")[-1]
    cut = int(last.name.split("-")[0]) + 1000 + SPLIT.offset
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    kept = _cut_b(corpus, cut, now, tmp_path / "aside")
    catalog = tmp_path / "catalog"
    defs = in_process_defs(str(corpus), str(catalog))
    with registered(str(corpus), str(catalog)) as instance:
        *before, newest = _keys(instance)
        assert newest.endswith(last.name)
        for key in before:
            assert _run(defs, instance, key).asset_materializations_for_node("header_pass")
        waited = _run(defs, instance, newest)
        assert waited.success and not waited.asset_materializations_for_node("header_pass")
        assert instance.get_run_by_id(waited.run_id).tags[WAITS_TAG] == newest
        assert _index_tick(instance, catalog) == []  # asked for again only a while later
        monkeypatch.setattr(sensors_module, "WAIT_RETRY_SECONDS", 0.0)
        (request,) = _index_tick(instance, catalog)
        assert request.partition_key == newest and waited.run_id in (request.run_key or "")
        _put_back(corpus, kept, tmp_path / "aside")
        assert _run(defs, instance, newest).asset_materializations_for_node("header_pass")
    assert catalog_files(catalog) == catalog_files(replayed)


def _corpus_tick(instance: dg.DagsterInstance, corpus: CorpusResource) -> None:
    with dg.build_sensor_context(instance=instance, resources={"corpus": corpus}) as context:
        result = corpus_sensor(context)
    assert isinstance(result, dg.SensorResult)
    for request in result.dynamic_partitions_requests or []:
        name, keys = request.partitions_def_name, list(request.partition_keys)
        if isinstance(request, dg.DeleteDynamicPartitionsRequest):
            for key in keys:
                instance.delete_dynamic_partition(name, key)
        else:
            instance.add_dynamic_partitions(name, keys)


@pytest.mark.parametrize("backbones", [["b"], ["a", "b"]])
def test_the_sensors_find_a_group_only_under_named_backbones(
    split: tuple[Path, Path], tmp_path: Path, backbones: list[str]
) -> None:
    """A group stored under `<root>/@b` alone, or under `@a` and `@b`: its partitions are
    its primary's complete ranges, and the index sensor asks for the first of them."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in backbones:
        shutil.copytree(split[0] / f"@{name}", corpus / f"@{name}")
    catalog = tmp_path / "catalog"
    primary = CorpusReader(backbone_root(str(corpus), backbones[0]))
    (group,) = primary.groups()
    refs = [info.ref for info in primary.ranges(group) if info.complete]
    with dg.DagsterInstance.ephemeral() as instance:
        _corpus_tick(instance, CorpusResource(url=str(corpus), catalog=str(catalog)))
        assert instance.get_dynamic_partitions("groups") == [group]
        assert sorted(_keys(instance)) == sorted(range_key(r) for r in refs)
        (request,) = _index_tick(instance, catalog)
        assert request.partition_key == range_key(refs[0])


def test_a_primary_that_comes_later_replaces_the_others_partitions(
    split: tuple[Path, Path], tmp_path: Path
) -> None:
    """A group first stored under `@b` alone gets b's ranges; once `@a` (first in priority)
    holds it too, nothing indexed yet, a is its primary: b's keys go, a's come."""
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    corpus.mkdir()
    shutil.copytree(split[0] / "@b", corpus / "@b")
    resource = CorpusResource(url=str(corpus), catalog=str(catalog))
    (group,) = CorpusReader(backbone_root(str(corpus), "b")).groups()

    def complete(name: str) -> list[str]:
        infos = CorpusReader(backbone_root(str(corpus), name)).ranges(group)
        return sorted(range_key(i.ref) for i in infos if i.complete)

    with dg.DagsterInstance.ephemeral() as instance:
        _corpus_tick(instance, resource)
        assert sorted(_keys(instance)) == complete("b")
        shutil.copytree(split[0] / "@a", corpus / "@a")
        _corpus_tick(instance, resource)
        _corpus_tick(instance, resource)
        assert sorted(_keys(instance)) == complete("a")
        (request,) = _index_tick(instance, catalog)
        assert request.partition_key == complete("a")[0]


PROVIDER = """\
[[provider]]
name = "{name}"
host = "127.0.0.1"
port = {port}
connections = 2
priority = {priority}
role = "headers"
backbone = "{name}"
"""


def _capture_resources(
    corpus: Path, catalog: Path, group: str, ports: dict[str, int]
) -> dict[str, object]:
    """The resources of capture from one provider per backbone (`ports`, in priority order)."""
    settings = corpus.parent / "providers.toml"
    settings.write_text(
        "".join(
            PROVIDER.format(name=name, port=port, priority=i + 1)
            for i, (name, port) in enumerate(ports.items())
        )
    )
    return {
        "corpus": CorpusResource(url=str(corpus), catalog=str(catalog)),
        "catalog": CatalogResource(url=str(catalog)),
        "rules": RulesResource(),
        "nntp": NNTPResource(providers_file=str(settings)),
        "capture": CaptureResource(
            groups=[group],
            range_size=SPLIT.range_size,
            chunk_size=SPLIT.chunk_size,
            headroom=0,
            ahead=100,
            ranges_open=4,
        ),
    }


@pytest.mark.timeout(300)
def test_the_capture_jobs_capture_each_backbone_and_the_index_fills(
    split: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two providers on two backbones (serve-nntp over each backbone of the split): the
    tail and history jobs store each backbone's corpus as its provider serves it, and the
    index sensor's runs fill the primary from the other: the releases `replay` finds."""
    served = str(split[0])
    (group,) = CorpusReader(backbone_root(served, "a")).groups()
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    monkeypatch.delenv("USENET_INDEXER_NNTP_HOST", raising=False)
    with NNTPServer(backbone_root(served, "a")) as a, NNTPServer(backbone_root(served, "b")) as b:
        resources = _capture_resources(corpus, catalog, group, {"a": a.port, "b": b.port})
        defs = build_defs(resource_overrides=resources, executor=dg.in_process_executor)
        with dg.DagsterInstance.ephemeral() as instance:
            tail = defs.resolve_job_def("tail_job")
            assert tail.execute_in_process(instance=instance).success
            with dg.build_sensor_context(instance=instance, resources=resources) as context:
                request = history_sensor(context)
            assert isinstance(request, dg.RunRequest)
            history = defs.resolve_job_def("history_job")
            config = request.run_config
            assert history.execute_in_process(instance=instance, run_config=config).success
            while requests := _index_tick(instance, catalog):
                for r in requests:
                    assert _run(defs, instance, r.partition_key or "").success
            # the next tail pass indexes what is stored of the growing range, its history done
            assert tail.execute_in_process(instance=instance).success
    for name in ("a", "b"):  # each backbone's corpus as its provider serves it
        assert _lines(backbone_root(str(corpus), name), group) == _lines(
            backbone_root(served, name), group
        )
    assert any((catalog / "_fill").rglob("*.npz"))  # the runs filled from b
    batch = tmp_path / "batch"
    replay(str(corpus), str(batch), Rules(), progress=False)
    assert _releases(catalog) == _releases(batch)


@pytest.mark.timeout(300)
def test_a_backbone_refusing_the_credentials_fails_the_capture_and_the_other_is_stored(
    split: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = str(split[0])
    (group,) = CorpusReader(backbone_root(served, "a")).groups()
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    monkeypatch.delenv("USENET_INDEXER_NNTP_HOST", raising=False)
    locked = ServerOptions(user="u", password="pw")  # b's provider sends no credentials
    with (
        NNTPServer(backbone_root(served, "a")) as a,
        NNTPServer(backbone_root(served, "b"), options=locked) as b,
    ):
        resources = _capture_resources(corpus, catalog, group, {"a": a.port, "b": b.port})
        defs = build_defs(resource_overrides=resources, executor=dg.in_process_executor)
        with dg.DagsterInstance.ephemeral() as instance:
            tail = defs.resolve_job_def("tail_job")
            result = tail.execute_in_process(instance=instance, raise_on_error=False)
            assert not result.success
            error = result.get_step_failure_events()[0].step_failure_data.error
            assert error is not None and "backbone b" in error.message
            assert "backbone a" not in error.message
            assert instance.get_dynamic_partitions("groups") == [group]
    stored = CorpusReader(backbone_root(str(corpus), "a")).ranges(group)
    assert stored and sum(c.lines for i in stored if i.manifest for c in i.manifest.chunks) > 0
