"""Partition listings every second: the local scandir path gives what fsspec gives."""

from __future__ import annotations

import os
from pathlib import Path

import fsspec
import pytest

from bench.synthetic_catalog import write_synthetic_catalog
from pipelines.catalog.layout import table_glob
from pipelines.catalog.partitions import list_group, list_table, parse_name
from pipelines.corpus.fs import is_temporary


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("listing") / "cat")
    write_synthetic_catalog(root, 900, groups=3, per_range=300, seed=4)
    group = sorted(Path(root, "releases").iterdir())[0]
    # What a listing must skip or keep: a write in progress, another file, a link.
    (group / "5-6.parquet.tmp-0123").write_bytes(b"partial")
    (group / "notes.txt").write_text("x")
    os.symlink(sorted(group.glob("*.parquet"))[0], group / "90-91.parquet")
    return root


def _fsspec_listing(root: str, table: str) -> list[tuple[str, int, str]]:
    fs = fsspec.filesystem("file")
    paths = sorted(p for p in fs.glob(table_glob(root, table)) if not is_temporary(p))
    return [(p, fs.info(p)["size"], str(fs.info(p)["mtime"])) for p in paths]


@pytest.mark.parametrize("table", ["releases", "release_files", "ranges", "nothing_here"])
def test_local_listing_is_fsspecs(catalog, table):
    got = list_table(fsspec.filesystem("file"), catalog, table)
    assert [(p.path, p.size, p.mtime) for p in got] == _fsspec_listing(catalog, table)
    paths = [p.path for p in list_table(fsspec.filesystem("file"), catalog, table, stat=False)]
    assert paths == [p.path for p in got]
    if table == "releases":
        assert any(p.endswith("/90-91.parquet") for p in paths)
        assert not any(".tmp-" in p or p.endswith(".txt") for p in paths)


def test_other_file_systems_go_through_fsspec(catalog):
    memory = fsspec.filesystem("memory")
    local = list_table(fsspec.filesystem("file"), catalog, "releases")
    for p in local:
        memory.pipe(f"/cat{p.path[len(catalog) :]}", Path(p.path).read_bytes())
    memory.pipe("/cat/releases/x/1-2.parquet.tmp-9", b"partial")
    got = list_table(memory, "/cat", "releases")
    assert [(p.path[len("/cat") :], p.size) for p in got] == [
        (p.path[len(catalog) :], p.size) for p in local
    ]


def test_only_span_named_files_are_partitions():
    F = False
    assert parse_name("0-1999.parquet") == (0, 1999, F, F, F, F, F, F)
    assert parse_name("compact-0-5999.parquet") == (0, 5999, True, F, F, F, F, F)
    assert parse_name("tail-0-499.parquet") == (0, 499, F, True, F, F, F, F)
    assert parse_name("probe-0-1999.parquet") == (0, 1999, F, F, True, F, F, F)
    assert parse_name("merge-0-1999.parquet") == (0, 1999, F, F, F, True, F, F)
    assert parse_name("import-5-9.parquet") == (5, 9, F, F, F, F, True, F)
    assert parse_name("predb-0-1999.parquet") == (0, 1999, F, F, F, F, F, True)
    for name in ("0-1999.parquet.tmp-ab12", "notes.parquet", "9-3.parquet", "0-1999.snapshot"):
        assert parse_name(name) is None, name


def test_a_group_lists_oldest_span_first_on_every_file_system(catalog, tmp_path):
    local = fsspec.filesystem("file")
    group = sorted(Path(catalog, "releases").iterdir())[0].name
    extra = Path(catalog, "releases", group, "notes.parquet")
    extra.write_bytes(b"not a partition")
    try:
        got = list_group(local, catalog, "releases", group)
    finally:
        extra.unlink()
    assert got == sorted(got, key=lambda p: (p.first, p.last))
    assert [p.path for p in got] == [
        p.path for p in list_table(local, catalog, "releases") if f"/{group}/" in p.path
    ]
    memory = fsspec.filesystem("memory")
    for p in got:
        memory.pipe(f"/cat{p.path[len(catalog) :]}", Path(p.path).read_bytes())
    listed = list_group(memory, "/cat", "releases", group)
    assert [(p.first, p.last, p.size) for p in listed] == [(p.first, p.last, p.size) for p in got]
    assert [p.path for p in list_group(memory, "/cat", "releases", group, stat=False)] == [
        p.path for p in listed
    ]
    assert list_group(local, catalog, "releases", "no.such.group") == []
    assert list_group(memory, "/cat", "releases", "no.such.group") == []
