"""The Dagster wiring, materialized in-process over temporary folders.

Compared with the CLI's replay on the same corpus; ranges out of order are refused; a
redone middle range (then the ones after it) gives the straight run's catalog;
compaction and the catalog asset leave the served answers unchanged.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from assets.partitions import RANGES, parse_range_key, range_key, ranges_by_group
from pipelines.catalog.partitions import list_group
from pipelines.corpus.fs import open_fs
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from tests.corpora import generate
from tests.dagster_runs import in_process_defs, registered

COMPARED = ("releases", "release_files", "pending_releases", "probe_candidates", "rule_counts")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("assets") / "demo"
    return generate(out, groups=2, articles=2_500, seed=11, range_size=1_000, chunk=500).corpus


def _run(defs: dg.Definitions, instance: dg.DagsterInstance, key: str) -> dg.ExecuteInProcessResult:
    job = defs.resolve_job_def("index_job")
    return job.execute_in_process(instance=instance, partition_key=key, raise_on_error=False)


def _failure(result: dg.ExecuteInProcessResult) -> str:
    """The message of the run's first failed step (the run must have failed)."""
    assert not result.success
    error = result.get_step_failure_events()[0].step_failure_data.error
    assert error is not None
    return error.message


def _keys(instance: dg.DagsterInstance) -> list[str]:
    return list(instance.get_dynamic_partitions(RANGES.name or "ranges"))


def _content(catalog: str, table: str) -> list[str]:
    """Every row of a table over all groups, canonical and sorted."""
    fs, root = open_fs(catalog)
    rows: list[str] = []
    for group in sorted(p.rsplit("/", 1)[-1] for p in fs.ls(f"{root}/{table}")):
        for f in list_group(fs, root, table, group):
            rows.extend(repr(sorted(r.items())) for r in pq.read_table(f.path).to_pylist())
    return sorted(rows)


@pytest.fixture(scope="module")
def straight(corpus: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    """Every partition materialized once, in article order: the reference catalog."""
    catalog = str(tmp_path_factory.mktemp("straight") / "catalog")
    defs = in_process_defs(corpus, catalog)
    with registered(corpus) as instance:
        keys = _keys(instance)
        for key in keys:
            result = _run(defs, instance, key)
            assert result.success, key
            checks = result.get_asset_check_evaluations()
            assert len(checks) == 3 and all(c.passed for c in checks), key
    return catalog, keys


@pytest.fixture
def catalog(straight: tuple[str, list[str]], tmp_path: Path) -> str:
    """A copy of the straight run's catalog, for the test to change."""
    return str(shutil.copytree(straight[0], tmp_path / "catalog"))


def test_partitions_are_the_complete_ranges(straight: tuple[str, list[str]], corpus: str) -> None:
    _, keys = straight
    groups = ranges_by_group(keys)
    assert len(groups) == 2
    for group, refs in groups.items():
        assert [r.first for r in refs] == sorted(r.first for r in refs)
        assert all(range_key(r) in keys for r in refs)
        assert (Path(corpus) / group / refs[0].name / "range.json").exists()


def test_materialized_catalog_equals_replay(
    straight: tuple[str, list[str]], corpus: str, tmp_path: Path
) -> None:
    catalog, _ = straight
    replayed = str(tmp_path / "replayed")
    replay(corpus, replayed, Rules(), progress=False)
    for table in COMPARED:
        assert _content(catalog, table) == _content(replayed, table), table


def test_metadata_shows_the_range_figures(corpus: str, tmp_path: Path) -> None:
    defs = in_process_defs(corpus, str(tmp_path / "catalog"))
    with registered(corpus) as instance:
        result = _run(defs, instance, _keys(instance)[0])
        assert result.success
        mats = {
            m.asset_key.to_user_string(): m.metadata
            for m in result.asset_materializations_for_node("header_pass")
        }
    assert set(mats) >= {"releases", "release_files", "window_snapshots", "ranges"}
    meta = mats["releases"]
    for name in ("headers", "releases_finished", "releases_provisional", "pending", "bad_lines"):
        assert name in meta
    assert meta["headers"].value > 0
    assert "headers_per_second" in meta and "bytes_written" in meta
    assert any(k.startswith("drops/") for k in meta)
    assert meta["rules_version"].value == Rules().fingerprint


def test_out_of_order_is_refused_with_the_missing_partition(corpus: str, tmp_path: Path) -> None:
    catalog = str(tmp_path / "catalog")
    defs = in_process_defs(corpus, catalog)
    with registered(corpus) as instance:
        refs = next(iter(ranges_by_group(_keys(instance)).values()))
        failure = _failure(_run(defs, instance, range_key(refs[1])))
        assert range_key(refs[0]) in failure and "not materialized yet" in failure
    assert not Path(catalog, "releases").exists() or not any(Path(catalog, "releases").rglob("*"))


def test_a_damaged_window_asks_for_its_partition_again(corpus: str, tmp_path: Path) -> None:
    catalog = str(tmp_path / "catalog")
    defs = in_process_defs(corpus, catalog)
    with registered(corpus) as instance:
        refs = next(iter(ranges_by_group(_keys(instance)).values()))
        assert _run(defs, instance, range_key(refs[0])).success
        (snapshot,) = Path(catalog, "_window").rglob("*.snapshot")
        snapshot.write_bytes(snapshot.read_bytes()[:40])  # cut short on disk
        failure = _failure(_run(defs, instance, range_key(refs[1])))
        assert "is damaged" in failure and "again first" in failure
        assert range_key(refs[0]) in failure
        # Materialized again, it writes a readable window, and the next range goes on.
        assert _run(defs, instance, range_key(refs[0])).success
        assert _run(defs, instance, range_key(refs[1])).success


def test_redo_middle_then_after_equals_straight(
    straight: tuple[str, list[str]], catalog: str, corpus: str
) -> None:
    reference, keys = straight
    defs = in_process_defs(corpus, catalog)
    with registered(corpus) as instance:
        refs = max(ranges_by_group(keys).values(), key=len)
        middle = len(refs) // 2
        for ref in refs[middle:]:
            assert _run(defs, instance, range_key(ref)).success
    for table in COMPARED:
        assert _content(catalog, table) == _content(reference, table), table


@pytest.mark.slow
def test_one_run_of_many_partitions_keeps_each_group_in_order(
    straight: tuple[str, list[str]], corpus: str, tmp_path: Path
) -> None:
    """A backfill run over every key (groups side by side in worker processes)."""
    reference, _ = straight
    catalog = str(tmp_path / "catalog")
    defs = in_process_defs(corpus, catalog)
    with registered(corpus) as instance:
        ordered = _keys(instance)
        job = defs.resolve_job_def("index_job")
        result = job.execute_in_process(
            instance=instance,
            tags={
                "dagster/asset_partition_range_start": ordered[0],
                "dagster/asset_partition_range_end": ordered[-1],
            },
        )
        assert result.success
    for table in COMPARED:
        assert _content(catalog, table) == _content(reference, table), table


def test_compaction_and_catalog_keep_the_answers(
    straight: tuple[str, list[str]], catalog: str, corpus: str
) -> None:
    reference, keys = straight
    defs = in_process_defs(corpus, catalog)
    before = {t: _content(catalog, t) for t in COMPARED}
    with registered(corpus) as instance:
        groups = sorted({parse_range_key(k).group for k in keys})
        for group in groups:
            result = defs.resolve_job_def("compact_job").execute_in_process(
                instance=instance, partition_key=group
            )
            assert result.success
        views = defs.resolve_job_def("catalog_job").execute_in_process(instance=instance)
        assert views.success
        meta = views.asset_materializations_for_node("catalog_views")[0].metadata
    fs, root = open_fs(catalog)
    for group in groups:
        files = list_group(fs, root, "releases", group)
        assert len(files) == 1 and files[0].compact
    assert {t: _content(catalog, t) for t in COMPARED} == before
    finished = [r for r in pq.read_table(f"{reference}/releases").to_pylist()]
    keys_seen = {r["release_key"] for r in finished}
    assert meta["releases"].value == len(keys_seen)


def test_a_damaged_partition_is_left_out_and_named_by_compaction_and_views(
    catalog: str, corpus: str
) -> None:
    bad = sorted(Path(catalog, "releases").rglob("*.parquet"))[0]
    bad.write_bytes(bad.read_bytes()[:-50])  # cut short
    defs = in_process_defs(corpus, catalog)
    group = bad.parent.name
    with registered(corpus) as instance:
        compacted = defs.resolve_job_def("compact_job").execute_in_process(
            instance=instance, partition_key=group
        )
        assert compacted.success
        meta = compacted.asset_materializations_for_node("compacted")[0].metadata
        assert meta["damaged_files"].value == 1
        views = defs.resolve_job_def("catalog_job").execute_in_process(instance=instance)
        assert views.success
        meta = views.asset_materializations_for_node("catalog_views")[0].metadata
        assert meta["damaged_partitions"].value == 1
    assert bad.exists()  # never removed nor merged


def test_checks_catch_duplicates_gaps_and_unreadable_files(
    straight: tuple[str, list[str]], catalog: str
) -> None:
    from assets.checks import check_results, count_gap, duplicate_finished_keys

    _, keys = straight
    refs = max(ranges_by_group(keys).values(), key=len)
    group, ref = refs[0].group, refs[0]
    assert all(r.passed for r in check_results(catalog, refs))

    releases = Path(catalog, "releases", group)
    with_finished = next(
        p
        for p in sorted(releases.glob("*.parquet"))
        if any(pq.read_table(p)["finished"].to_pylist())
    )
    shutil.copy(with_finished, releases / "1-2.parquet")  # the same finished keys again
    assert duplicate_finished_keys(catalog, group)
    (releases / "1-2.parquet").unlink()

    counts = Path(catalog, "rule_counts", group, f"{ref.name}.parquet")
    table = pq.read_table(counts)
    pq.write_table(table.slice(1), counts)  # one rule's drops lost
    assert count_gap(catalog, ref) == table["count"][0].as_py()

    Path(catalog, "probe_candidates", group, f"{ref.name}.parquet").write_bytes(b"not parquet")
    results = {r.check_name: r.passed for r in check_results(catalog, refs)}
    assert results == {
        "finished_keys_unique": True,
        "counts_add_up": False,
        "parquet_readable": False,
    }


def test_bad_partition_keys_and_ranges_not_in_the_corpus(corpus: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a range partition key"):
        parse_range_key("alt.binaries.x")
    with pytest.raises(ValueError, match="not a range partition key"):
        parse_range_key("alt.binaries.x|5-2")
    defs = in_process_defs(corpus, str(tmp_path / "catalog"))
    with registered(corpus) as instance:
        group = parse_range_key(_keys(instance)[0]).group
        missing = f"{group}|1-999"
        instance.add_dynamic_partitions(RANGES.name or "ranges", [missing])
        failure = _failure(_run(defs, instance, missing))
        assert f"the corpus has no range {group} 1-999" in failure


def test_a_second_run_of_a_busy_group_is_refused(corpus: str, tmp_path: Path) -> None:
    defs = in_process_defs(corpus, str(tmp_path / "catalog"))
    with registered(corpus) as instance:
        first = _keys(instance)[0]
        other = dg.DagsterRun(
            job_name="index_job",
            run_id="f" * 36,
            tags={"dagster/partition": first},
            status=dg.DagsterRunStatus.STARTED,
        )
        instance.add_run(other)
        failure = _failure(_run(defs, instance, first))
        assert f"is being indexed by run {'f' * 36}" in failure
    assert not (tmp_path / "catalog").exists()
