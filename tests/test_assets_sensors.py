"""Sensors: complete ranges become partitions; each group's next range (new or stale) runs."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import pytest

from assets import build_defs
from assets.launch import register
from assets.partitions import GROUPS, RANGES, range_key, ranges_by_group
from assets.resources import CatalogResource, CorpusResource, RulesResource
from assets.sensors import corpus_sensor, index_sensor
from pipelines.corpus.layout import RangeRef
from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.index.rules import GarbageSignature, Rules


@pytest.fixture
def corpus(tmp_path: Path) -> str:
    out = tmp_path / "demo"
    config = GenerateConfig(groups=2, articles=1_500, seed=5, range_size=1_000, chunk=500)
    generate_corpus(str(out), config, progress=False)
    return str(out / "corpus")


def _tick(instance: dg.DagsterInstance, corpus: str) -> dg.SensorResult:
    resources = {"corpus": CorpusResource(url=corpus)}
    with dg.build_sensor_context(instance=instance, resources=resources) as context:
        result = corpus_sensor(context)
    assert isinstance(result, dg.SensorResult)
    for request in result.dynamic_partitions_requests or []:
        assert isinstance(request, dg.AddDynamicPartitionsRequest)
        instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
    return result


def _copy_range(corpus: str, group: str, src: str, first: int, last: int, complete: bool) -> str:
    """A new range folder made from an existing one's chunks, as capture would write it."""
    source = Path(corpus) / group / src
    target = Path(corpus) / group / f"{first}-{last}"
    target.mkdir()
    manifest = json.loads((source / "range.json").read_text())
    offset = first - manifest["first"]
    chunks = []
    for c in manifest["chunks"]:
        name = f"{c['first'] + offset}-{c['last'] + offset}.xover.zz"
        (target / name).write_bytes((source / c["file"]).read_bytes())
        chunks.append(dict(c, file=name, first=c["first"] + offset, last=c["last"] + offset))
    doc = dict(manifest, first=first, last=last, complete=complete, chunks=chunks)
    (target / "range.json").write_text(json.dumps(doc))
    return range_key(RangeRef(group, first, last))


def test_corpus_sensor_adds_complete_ranges_only(corpus: str) -> None:
    with dg.DagsterInstance.ephemeral() as instance:
        _tick(instance, corpus)
        keys = set(instance.get_dynamic_partitions(RANGES.name or "ranges"))
        groups = set(instance.get_dynamic_partitions(GROUPS.name or "groups"))
        assert len(groups) == 2 and keys
        assert {k.split("|")[0] for k in keys} == groups
        # nothing new: no request
        assert not _tick(instance, corpus).dynamic_partitions_requests

        group = sorted(groups)[0]
        last = max(ranges_by_group(keys)[group], key=lambda r: r.first)
        complete = _copy_range(corpus, group, last.name, last.last + 1, last.last + 1000, True)
        partial = _copy_range(corpus, group, last.name, last.last + 1001, last.last + 2000, False)
        _tick(instance, corpus)
        now = set(instance.get_dynamic_partitions(RANGES.name or "ranges"))
        assert now - keys == {complete}
        assert partial not in now

        # the range completes: its partition appears on the next tick
        manifest = Path(corpus) / group / partial.split("|")[1] / "range.json"
        manifest.write_text(json.dumps(dict(json.loads(manifest.read_text()), complete=True)))
        _tick(instance, corpus)
        assert partial in instance.get_dynamic_partitions(RANGES.name or "ranges")


def test_a_new_group_gets_its_partitions(corpus: str, tmp_path: Path) -> None:
    with dg.DagsterInstance.ephemeral() as instance:
        _tick(instance, corpus)
        src_group = sorted(instance.get_dynamic_partitions(GROUPS.name or "groups"))[0]
        src = sorted((Path(corpus) / src_group).iterdir())[0].name
        new_group = Path(corpus) / "alt.binaries.added"
        new_group.mkdir()
        first, last = (int(x) for x in src.split("-"))
        (new_group / src).mkdir()
        manifest = json.loads((Path(corpus) / src_group / src / "range.json").read_text())
        for c in manifest["chunks"]:
            (new_group / src / c["file"]).write_bytes(
                (Path(corpus) / src_group / src / c["file"]).read_bytes()
            )
        manifest["group"] = "alt.binaries.added"
        (new_group / src / "range.json").write_text(json.dumps(manifest))
        _tick(instance, corpus)
        assert "alt.binaries.added" in instance.get_dynamic_partitions(GROUPS.name or "groups")
        assert range_key(RangeRef("alt.binaries.added", first, last)) in (
            instance.get_dynamic_partitions(RANGES.name or "ranges")
        )


def _index_tick(
    instance: dg.DagsterInstance, catalog: str, rules: str, cursor: str | None
) -> dg.SensorResult:
    resources = {"catalog": CatalogResource(url=catalog), "rules": RulesResource(path=rules)}
    with dg.build_sensor_context(instance=instance, cursor=cursor, resources=resources) as context:
        result = index_sensor(context)
    assert isinstance(result, dg.SensorResult)
    return result


def test_index_sensor_walks_each_group_in_order_and_marks_stale(
    corpus: str, tmp_path: Path
) -> None:
    catalog = str(tmp_path / "catalog")
    base = tmp_path / "base.json"
    base.write_text(json.dumps(Rules().to_json()))
    defs = build_defs(
        resource_overrides={
            "corpus": CorpusResource(url=corpus),
            "catalog": CatalogResource(url=catalog),
            "rules": RulesResource(path=str(base)),
        },
        executor=dg.in_process_executor,
    )
    job = defs.resolve_job_def("index_job")
    with dg.DagsterInstance.ephemeral() as instance:
        register(instance, CorpusResource(url=corpus))
        by_group = ranges_by_group(instance.get_dynamic_partitions(RANGES.name or "ranges"))
        cursor = None
        launched: list[str] = []
        for _ in range(sum(len(v) for v in by_group.values()) + 1):
            result = _index_tick(instance, catalog, str(base), cursor)
            cursor = result.cursor
            requests = list(result.run_requests or [])
            if not requests:
                break
            assert len({r.tags["usenet-indexer/group"] for r in requests}) == len(requests)
            for request in requests:
                assert request.partition_key is not None
                launched.append(request.partition_key)
                run = job.execute_in_process(instance=instance, partition_key=request.partition_key)
                assert run.success
        # every range once, each group's ranges in article order
        for group, refs in by_group.items():
            assert [k for k in launched if k.startswith(group + "|")] == [
                range_key(r) for r in refs
            ]

        # a signature scoped to one group makes only that group's ranges stale
        target = sorted(by_group)[1]
        changed = Rules(garbage=(GarbageSignature(poster="x@y", group=target, reason="t"),))
        new = tmp_path / "changed.json"
        new.write_text(json.dumps(changed.to_json()))
        result = _index_tick(instance, catalog, str(new), cursor)
        keys = [r.partition_key for r in result.run_requests or []]
        assert keys == [range_key(by_group[target][0])]
