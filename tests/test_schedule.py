"""The range scheduler: `replay` and the index sensor redo the same ranges of one catalog.

Each case copies one indexed catalog twice, changes something (the rule set, a range
redone under other rules, a damaged window snapshot), and lets `replay` redo one copy
and the index sensor (ticked, its requests run, until it asks for nothing) the other:
both redo the same ranges, in the same order, and end with the same catalog.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from assets.partitions import range_key
from assets.sensors import index_sensor
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader
from pipelines.index.replay import replay
from pipelines.index.rules import GarbageSignature, Rules
from pipelines.index.runs import GroupJob, index_group
from pipelines.index.schedule import (
    GroupSchedule,
    record_rules,
    recorded_rules,
    stale_reason,
)
from tests.corpora import generate
from tests.dagster_runs import in_process_defs, registered

TABLES = ("releases", "release_files", "pending_releases", "probe_candidates", "rule_counts")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("schedule") / "demo"
    return generate(out, groups=2, articles=2_500, seed=11, range_size=1_000, chunk=500).corpus


def _refs(corpus: str) -> dict[str, list[RangeRef]]:
    reader = CorpusReader(corpus)
    return {g: [i.ref for i in reader.ranges(g)] for g in sorted(reader.groups())}


def _last_poster(catalog: str, group: str) -> str:
    """The poster whose first release in the group comes last (posts in late ranges only)."""
    first: dict[str, int] = {}
    for row in pq.read_table(f"{catalog}/releases/{group}").to_pylist():
        first[row["poster"]] = min(first.get(row["poster"], 1 << 62), row["first_article"])
    return max(first, key=lambda p: (first[p], p))


@pytest.fixture(scope="module")
def indexed(corpus: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Rules]:
    """A catalog replayed under rules that drop a late poster of the first group."""
    root = tmp_path_factory.mktemp("indexed")
    group = next(iter(_refs(corpus)))
    plain = str(root / "plain")
    replay(corpus, plain, Rules(), progress=False)
    signature = GarbageSignature(poster=_last_poster(plain, group), group=group, reason="test")
    rules = Rules(garbage=(signature,))
    catalog = str(root / "catalog")
    replay(corpus, catalog, rules, progress=False)
    return catalog, rules


def _copy(catalog: str, to: Path) -> str:
    shutil.copytree(catalog, to)
    return str(to)


def _content(catalog: str) -> dict[str, list[str]]:
    out = {}
    for table in TABLES:
        rows = pq.read_table(f"{catalog}/{table}").to_pylist()
        out[table] = sorted(repr(sorted(r.items())) for r in rows)
    return out


def _rules_file(rules: Rules, path: Path) -> str:
    path.write_text(json.dumps(rules.to_json()))
    return str(path)


def _replay_redo(corpus: str, catalog: str, rules: Rules) -> list[str]:
    summary = replay(corpus, catalog, rules, progress=False)
    return [range_key(RangeRef(r.group, r.first, r.last)) for r in summary.results]


def _sensor_redo(corpus: str, catalog: str, rules_path: str) -> tuple[list[str], list[str]]:
    """Tick the index sensor and run each request until it asks for nothing: the keys run
    successfully, and the run keys of every request (failed runs too)."""
    defs = in_process_defs(corpus, catalog, rules_path)
    index_job = defs.resolve_job_def("index_job")
    resources = {"catalog": defs.resources["catalog"], "rules": defs.resources["rules"]}
    done: list[str] = []
    run_keys: list[str] = []
    with registered(corpus) as instance:
        for _ in range(20):
            with dg.build_sensor_context(instance=instance, resources=resources) as context:
                result = index_sensor(context)
            assert isinstance(result, dg.SensorResult)
            requests = list(result.run_requests or [])
            if not requests:
                return done, run_keys
            for request in requests:
                assert request.partition_key is not None and request.run_key is not None
                assert request.run_key not in run_keys  # Dagster would drop it
                run_keys.append(request.run_key)
                run = index_job.execute_in_process(
                    instance=instance, partition_key=request.partition_key, raise_on_error=False
                )
                if run.success:
                    done.append(request.partition_key)
    raise AssertionError("the sensor kept asking")


def _due(catalog: str, corpus: str, rules: Rules) -> list[str]:
    return [
        range_key(d.ref)
        for refs in _refs(corpus).values()
        for d in GroupSchedule(catalog, refs, rules).due()
    ]


def test_unchanged_rules_redo_nothing(
    indexed: tuple[str, Rules], corpus: str, tmp_path: Path
) -> None:
    catalog, rules = indexed
    a, b = _copy(catalog, tmp_path / "a"), _copy(catalog, tmp_path / "b")
    assert _due(a, corpus, rules) == []
    assert _replay_redo(corpus, a, rules) == []
    assert _sensor_redo(corpus, b, _rules_file(rules, tmp_path / "rules.json")) == ([], [])


def test_a_rule_change_redoes_where_it_fired_in_replay_and_the_sensor(
    indexed: tuple[str, Rules], corpus: str, tmp_path: Path
) -> None:
    catalog, _ = indexed
    group, refs = next(iter(_refs(corpus).items()))
    counts = pq.read_table(f"{catalog}/rule_counts/{group}").to_pylist()
    fired = {r["range_first"] for r in counts if r["rule"] == "garbage_signature" and r["count"]}
    assert fired and refs[0].first not in fired  # the signature fired in late ranges only
    # removing it: where it fired, and each range after (its window changed)
    start = min(i for i, ref in enumerate(refs) if ref.first in fired)
    want = [range_key(ref) for ref in refs[start:]]
    removed = Rules()
    a, b = _copy(catalog, tmp_path / "a"), _copy(catalog, tmp_path / "b")
    assert _due(a, corpus, removed)[0] == want[0]  # the other group: nothing
    assert all(k.startswith(group + "|") for k in _due(a, corpus, removed))

    assert _replay_redo(corpus, a, removed) == want
    done, _ = _sensor_redo(corpus, b, _rules_file(removed, tmp_path / "rules.json"))
    assert done == want
    assert _content(a) == _content(b)
    assert _due(a, corpus, removed) == _due(b, corpus, removed) == []


def test_a_range_redone_under_other_rules_makes_the_next_one_due(
    indexed: tuple[str, Rules], corpus: str, tmp_path: Path
) -> None:
    catalog, rules = indexed
    group, refs = list(_refs(corpus).items())[1]
    assert len(refs) >= 3
    # a signature for a group not indexed: no range is stale by it
    other = Rules(garbage=(*rules.garbage, GarbageSignature(poster="p", group="alt.none")))
    a = _copy(catalog, tmp_path / "a")
    index_group(GroupJob(corpus, a, other, group, (refs[1],)))  # one partition's run
    assert [d.ref for d in GroupSchedule(a, refs, other).due()] == [refs[2]]
    b = _copy(a, tmp_path / "b")
    want = [range_key(ref) for ref in refs[2:]]
    assert _replay_redo(corpus, a, other) == want
    done, _ = _sensor_redo(corpus, b, _rules_file(other, tmp_path / "rules.json"))
    assert done == want
    assert _content(a) == _content(b)


def test_a_lost_window_redoes_its_range_in_replay_and_the_sensor(
    indexed: tuple[str, Rules], corpus: str, tmp_path: Path
) -> None:
    catalog, rules = indexed
    group, refs = next(iter(_refs(corpus).items()))
    a, b = _copy(catalog, tmp_path / "a"), _copy(catalog, tmp_path / "b")
    for copy in (a, b):
        window = Path(copy, "_window", group)
        damaged = window / f"{refs[1].name}.snapshot"
        damaged.write_bytes(damaged.read_bytes()[:40])
        (window / f"{refs[2].name}.snapshot").unlink()
    want = [range_key(refs[1]), range_key(refs[2])]
    assert _replay_redo(corpus, a, rules) == want
    done, run_keys = _sensor_redo(corpus, b, _rules_file(rules, tmp_path / "rules.json"))
    # the sensor first asks for the range whose window is lost; that run fails and
    # removes the damaged snapshot, so it asks for the range before, then again
    assert [k.split("@")[0] for k in run_keys] == [want[1], *want]
    assert done == want
    assert _content(a) == _content(b) == _content(catalog)


def test_rule_sets_are_recorded_and_an_unrecorded_one_is_stale(
    indexed: tuple[str, Rules], corpus: str, tmp_path: Path
) -> None:
    catalog, rules = indexed
    assert recorded_rules(catalog, rules.fingerprint) == rules.to_json()
    assert recorded_rules(catalog, Rules(version="9").fingerprint) is None
    a = _copy(catalog, tmp_path / "a")
    shutil.rmtree(Path(a, "_rules"))
    every = [range_key(ref) for refs in _refs(corpus).values() for ref in refs]
    assert _due(a, corpus, rules) == []  # the current rules need no record
    assert _due(a, corpus, Rules()) == every  # another: what changed is not known
    record_rules(a, rules)
    assert recorded_rules(a, rules.fingerprint) == rules.to_json()
    assert _due(a, corpus, Rules()) != every


def test_stale_reason_names_what_a_change_touches() -> None:
    old = Rules().to_json()
    group = "alt.binaries.a"
    assert stale_reason(None, old, group, set()) is not None
    assert stale_reason(old, old, group, {"crosspost"}) is not None  # same content: version only
    assert stale_reason(old, dict(old, version="2"), group, set()) is not None
    assert stale_reason(old, dict(old, upload_gap=60), group, set()) is not None
    assert stale_reason(old, dict(old, sample_every=10), group, set()) is None
    assert stale_reason(old, dict(old, sample_every=10), group, {"crosspost"}) is not None
    sig = {"poster": "p", "group": "alt.binaries.b", "tool": "", "reason": ""}
    added = dict(old, garbage=[sig])
    assert stale_reason(old, added, group, set()) is None  # scoped to another group
    assert stale_reason(old, added, "alt.binaries.b", set()) is not None
    # removing a signature matters only where it fired
    assert stale_reason(added, old, "alt.binaries.b", {"crosspost"}) is None
    assert stale_reason(added, old, "alt.binaries.b", {"garbage_signature"}) is not None
