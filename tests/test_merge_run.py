"""A merge run over spans: incremental (a span's releases join what earlier spans merged,
its place kept), waiting for the article pass, resumable after a stop between its
writes, undone when the header pass writes a range again, left alone by compaction."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import pipelines.merge.run as merge_run
from pipelines.catalog.compact import compact_group
from pipelines.catalog.partitions import parse_name
from pipelines.corpus.fs import open_fs
from pipelines.merge.run import merge_catalog
from pipelines.merge.store import drop_merge_outputs, merges, version_files
from tests.merge_catalog import GROUP, HOUR, T0, MergeCatalog, md5
from tests.test_merge_rules import per_file_upload, shown

A, B = (0, 999), (1000, 1999)


def two_span_upload(cat: MergeCatalog) -> tuple[bytes, list[bytes]]:
    """An obfuscated upload whose par2 holder and first file are in span A, the other
    files a day later in span B."""
    holder, parts = per_file_upload(cat, "inc", files=1, span=A)
    listed = next(r for r in cat.results if r["kind"] == "par2")
    for i in (1, 2):
        listed["names"].append(f"inc.Movie.2020.part{i + 1:02d}.rar")
        listed["sizes"].append(50 << 20)
        listed["hashes"].append(md5(f"inc{i}"))
        name = f"inc{i}late.bin"
        key = cat.release(f"late{i}", name, [(name, 52 << 20)], span=B,
                          posted=T0 + 24 * HOUR + i, pending=True)  # fmt: skip
        cat.head(key, name, md5(f"inc{i}"), 50 << 20)
        parts.append(key)
    return holder, parts


def test_a_later_span_joins_what_an_earlier_one_merged(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    holder, parts = two_span_upload(cat)
    cat.write(only={A})
    first = merge_catalog(cat.root)
    assert first.spans == 1 and first.absorbed == {"par2": 1}
    assert shown(cat.root)[holder]["files"] == 2 and not shown(cat.root)[holder]["complete"]

    cat.write(only={B})  # the next range lands
    second = merge_catalog(cat.root)
    assert second.spans == 1 and second.absorbed == {"par2": 2}  # only span B was read anew
    whole = shown(cat.root)
    assert set(whole) == {holder}
    assert whole[holder]["files"] == 4 and whole[holder]["complete"] is True
    assert {r["from_key"] for r in merges(cat.root).to_pylist()} == set(parts)

    again = merge_catalog(cat.root)  # its place kept: nothing to do
    assert again.spans == 0 and again.absorbed == {}


def test_a_span_waits_for_the_article_pass(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    two_span_upload(cat)
    cat.waiting = {A}
    cat.write()
    summary = merge_catalog(cat.root)
    assert summary.spans == 0 and summary.waiting == [f"{GROUP}|0-999"]
    assert merges(cat.root).num_rows == 0  # span B waits behind it: merged in order


def clean_result(tmp_path: Path) -> tuple[dict[bytes, dict[str, Any]], list[tuple[Any, ...]]]:
    cat = MergeCatalog(str(tmp_path / "clean"))
    two_span_upload(cat)
    cat.write()
    merge_catalog(cat.root, now=1)
    return shown(cat.root), sorted(tuple(r.values()) for r in merges(cat.root).to_pylist())


@pytest.mark.parametrize("writes_before_stop", [1, 2])
def test_a_run_stopped_between_writes_is_finished_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes_before_stop: int
) -> None:
    cat = MergeCatalog(str(tmp_path / "cat"))
    holder, _ = two_span_upload(cat)
    cat.write()
    real = merge_run.atomic_put
    done: list[str] = []

    def stopping(fs: Any, path: str, payload: Any) -> None:
        if len(done) == writes_before_stop:
            raise KeyboardInterrupt("stopped")
        done.append(path)
        real(fs, path, payload)

    monkeypatch.setattr(merge_run, "atomic_put", stopping)
    with pytest.raises(KeyboardInterrupt):
        merge_catalog(cat.root)
    monkeypatch.setattr(merge_run, "atomic_put", real)

    # readers still read: the record is not written, the span is due again
    seen = shown(cat.root)
    assert holder in seen and merges(cat.root).num_rows == 0
    # the spans' absorbed files written, then (2) their merged version too, not the record
    assert seen[holder]["files"] == (1 if writes_before_stop == 1 else 4)
    merge_catalog(cat.root, now=1)
    clean_shown, clean_records = clean_result(tmp_path)
    assert shown(cat.root) == clean_shown
    assert sorted(tuple(r.values()) for r in merges(cat.root).to_pylist()) == clean_records


def test_a_range_indexed_again_drops_the_merges_holding_it(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    holder, parts = two_span_upload(cat)
    cat.write(only={A})
    merge_catalog(cat.root)
    cat.write(only={B})
    merge_catalog(cat.root)
    assert len(version_files(cat.root, GROUP)) == 4  # releases and files, per span
    assert drop_merge_outputs(cat.root, GROUP, *B) == 3  # span B's: files, versions, record
    assert shown(cat.root)[holder]["files"] == 2  # A's merge stands
    assert {r["from_key"] for r in merges(cat.root).to_pylist()} == {parts[0]}
    again = merge_catalog(cat.root)
    assert again.spans == 1 and shown(cat.root)[holder]["files"] == 4


def test_compaction_leaves_the_merges_files_alone(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    two_span_upload(cat)
    cat.write()
    merge_catalog(cat.root)
    before = shown(cat.root)
    files = sorted(p.path for p in version_files(cat.root, GROUP))
    compact_group(cat.root, GROUP, target_bytes=1 << 30)
    fs, root = open_fs(cat.root)
    assert any("compact-" in str(p) for p in fs.ls(f"{root}/releases/{GROUP}"))
    assert sorted(p.path for p in version_files(cat.root, GROUP)) == files
    assert shown(cat.root) == before
    # a compact span over merged ranges is merged already: nothing is read again
    assert merge_catalog(cat.root).spans == 0


def test_merge_partitions_are_named_apart() -> None:
    parsed = parse_name("merge-0-999.parquet")
    assert parsed is not None and parsed.merge and not (parsed.probe or parsed.tail)
    assert parse_name("merge-x.parquet") is None


def test_a_copied_catalog_merges_the_same(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path / "a"))
    two_span_upload(cat)
    cat.write()
    shutil.copytree(cat.root, tmp_path / "b")
    merge_catalog(cat.root, now=1)
    merge_catalog(str(tmp_path / "b"), now=1)
    assert shown(cat.root) == shown(str(tmp_path / "b"))


def test_the_merge_command_says_what_it_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    cat = MergeCatalog(str(tmp_path))
    two_span_upload(cat)
    cat.write()
    assert main(["merge", "--catalog", cat.root, "--group", GROUP, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "merged 2 spans of 1 groups" in out and "3 releases absorbed (3 by par2)" in out
    assert main(["merge", "--catalog", cat.root, "--quiet"]) == 0
    assert "merged 0 spans" in capsys.readouterr().out


def test_a_stopped_batch_is_undone_when_the_next_run_batches_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat = MergeCatalog(str(tmp_path))
    holder, parts = two_span_upload(cat)
    cat.write(only={A})
    real = merge_run.atomic_put
    calls: list[str] = []

    def stopping(fs: Any, path: str, payload: Any) -> None:
        if "release_merges" in path:
            raise KeyboardInterrupt("stopped before the record")
        calls.append(path)
        real(fs, path, payload)

    monkeypatch.setattr(merge_run, "atomic_put", stopping)
    with pytest.raises(KeyboardInterrupt):
        merge_catalog(cat.root)
    monkeypatch.setattr(merge_run, "atomic_put", real)
    assert len(calls) == 2 and shown(cat.root)[holder]["files"] == 2
    cat.write(only={B})  # a span lands: the next batch is A and B, ending elsewhere
    merge_catalog(cat.root)
    assert {r["from_key"] for r in merges(cat.root).to_pylist()} == set(parts)
    assert shown(cat.root)[holder]["files"] == 4
    assert len(version_files(cat.root, GROUP)) == 2


def test_the_header_pass_check_of_unique_finished_keys_leaves_merges_aside(
    tmp_path: Path,
) -> None:
    from assets.checks import duplicate_finished_keys

    cat = MergeCatalog(str(tmp_path))
    rars = [(f"s.part{i}.rar", 50 << 20) for i in range(1, 4)]
    cat.release("show", "Some.Show.S01E01", rars, file_total=3)
    cat.release("nfo", "Some.Show.S01E01", [("Some.Show.S01E01.nfo", 4000)], posted=T0 + 120)
    cat.write()
    assert merge_catalog(cat.root).absorbed == {"sidecar": 1}
    assert duplicate_finished_keys(cat.root, GROUP) == []


def test_a_damaged_partition_stops_its_group_with_a_clear_word(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    holder, _ = two_span_upload(cat)
    other = MergeCatalog(str(tmp_path), group="alt.binaries.other")
    other_holder, _ = per_file_upload(other, "oth")
    cat.write(only={A})
    other.write()
    merge_catalog(cat.root)
    cat.write(only={B})
    damaged = tmp_path / "release_files" / GROUP / "1000-1999.parquet"
    damaged.write_bytes(damaged.read_bytes()[:100])  # cut short, as by a full disk
    summary = merge_catalog(cat.root)
    assert summary.spans == 0 and "1000-1999.parquet" in summary.damaged[0]
    assert "damaged partition" in summary.text()
    assert shown(cat.root)[holder]["files"] == 2  # what was merged stays
    assert shown(cat.root)[other_holder]["files"] == 4  # the other group was merged


def test_spans_are_batched_by_count_and_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipelines.catalog.partitions import Partition
    from pipelines.merge.run import batches_of

    spans = [Partition(i * 10, i * 10 + 9, f"p{i}", size=10) for i in range(7)]
    monkeypatch.setattr(merge_run, "BATCH_SPANS", 3)
    monkeypatch.setattr(merge_run, "BATCH_BYTES", 1000)
    assert [len(b) for b in batches_of(spans)] == [3, 3, 1]
    monkeypatch.setattr(merge_run, "BATCH_SPANS", 100)
    monkeypatch.setattr(merge_run, "BATCH_BYTES", 25)
    assert [len(b) for b in batches_of(spans)] == [2, 2, 2, 1]
    big = [Partition(0, 9, "big", size=10_000)]
    assert batches_of(big) == [big]  # a span over the budget still goes, alone


def test_the_bench_command_reports_cpu_per_million_releases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    args = ["bench-merge", "--releases", "2000", "--span-releases", "500", "--keep", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "4 spans" in out and "CPU-s per million releases" in out and "by par2" in out
    assert main(["bench-merge", "--releases", "0"]) == 2
