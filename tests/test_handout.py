"""The window's block hand-out (`FileBlock`) against the same releases as objects: the
catalog rows are the same of each, table by table, finished and provisional."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines import naming
from pipelines.corpus.reader import CorpusReader, RangeReport
from pipelines.index.catalog_rows import CatalogRows
from pipelines.index.file_rows import texts
from pipelines.index.handout import FileBlock, HandOut
from pipelines.index.parse import Drops, parse_chunk
from pipelines.index.probes import seven_zip, seven_zip_rows
from pipelines.index.release_rows import groups_of, groups_of_each, one_list_each
from pipelines.index.window import Window
from tests.corpora import generate


def _tables(out: CatalogRows) -> dict[str, pa.Table]:
    tables = {}
    for name, table in out.tables().items():
        tables[name] = table if isinstance(table, pa.Table) else pa.concat_tables(list(table))
    return tables


def _both(
    handed: HandOut, finished: bool, window: Window, block: CatalogRows, objects: CatalogRows
) -> int:
    """The hand-out's block to one output as a block, to the other as objects."""
    releases = handed.block.open_releases()
    block.hand_out_block(handed.block, finished)
    for rel in releases:
        objects.hand_out(rel, finished, window.is_batch_total(rel, finished))
    return len(releases)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 8])
def test_a_block_makes_the_rows_its_releases_make_as_objects(tmp_path: Path, seed: int):
    demo = generate(tmp_path, groups=2, articles=60_000, seed=seed, range_size=15_000, chunk=2_500)
    reader = CorpusReader(demo.corpus)
    handed = {True: 0, False: 0}
    for group, ctx in demo.groups():
        window = Window(demo.rules)
        for info in reader.complete_ranges(group):
            block, objects = (CatalogRows(group, info.ref.first, "v") for _ in range(2))
            report = RangeReport(group, info.ref.first, info.ref.last)
            for chunk in reader.read_range(info, report):
                parsed = parse_chunk(chunk, ctx, demo.rules, window.frontier, Drops())
                window.add(parsed)
                parsed.slim()
                handed[True] += _both(window.finish_due(), True, window, block, objects)
            handed[False] += _both(window.carry(), False, window, block, objects)
            got, want = _tables(block), _tables(objects)
            assert got.keys() == want.keys()
            for name in got:
                assert got[name].equals(want[name]), name
            assert block.files.written == objects.files.written
    assert handed[True] > 50 and handed[False] > 5


def test_an_empty_block_hands_out_nothing():
    out = CatalogRows("a.b", 1, "v")
    out.hand_out_block(FileBlock.empty(), True)
    assert not out.releases.releases and not out.releases.pending and out.files.written == 0
    assert _tables(out)["release_files"].num_rows == 0


def test_xrefs_all_at_once_give_what_each_gives():
    xrefs = [
        b"Xref: news.x a.b.c:12 a.b.d:13",
        b"",
        b"Xref: h a.b:1\t",
        b"a.b.c:5 x.y:7 z",
        b"Xref: h a.b.c:99 a.b.e:1",
        b"Xref: h a.b.c:1\na.b.x:2",  # not from an overview line: each on its own
    ]
    for some in (xrefs, xrefs[:-1], xrefs[:1], []):
        assert groups_of_each(some, "fb") == [groups_of(x, "fb") for x in some]


def test_seven_zip_names_found_in_one_search():
    names = [b"a.7z.001", b"b.rar", b"", b"C.7Z", b"x.7z.7z", b".7", b"z.7z", b"n\0.7z"]
    for some in (names, names[:-1], names[:3], [], [b"a.7z"]):
        want = [k for k, name in enumerate(some) if seven_zip(name)]
        assert np.asarray(seven_zip_rows(some)).tolist() == want


def test_runs_of_one_list_are_told_from_runs_of_equal_lists():
    one, other = ["a.b"], ["a.b"]  # equal, but two lists: a release whose files differ
    lists = [one, one, other, one, other, other, one]
    starts = np.array([0, 2, 3, 4, 6])
    assert one_list_each(lists, starts).tolist() == [True, True, True, True, True]
    assert one_list_each(lists, np.array([0, 3])).tolist() == [False, False]
    assert one_list_each(lists, np.array([1])).tolist() == [False]
    assert one_list_each([], np.zeros(0, np.int64)).tolist() == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=6) | st.text(max_size=3).map(str.encode), max_size=12))
def test_text_columns_are_what_to_text_makes_of_each(values):
    # bytes that are not UTF-8 (cp1252, Latin-1) beside UTF-8 and ASCII
    got = texts(values).to_pylist()
    assert got == [naming.to_text(v) for v in values]
