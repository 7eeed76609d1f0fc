"""The planner: ranges of a group, and the chunks still missing from a range."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.capture.planner import (
    PlanSettings,
    fetch_limit,
    group_ranges,
    missing_spans,
    usable_chunks,
)
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.manifest import ChunkEntry

REF = RangeRef("alt.binaries.x", 2000, 2999)


def entry(first: int, last: int) -> ChunkEntry:
    return ChunkEntry(f"{first}-{last}.xover.zz", first, last, 1, 1)


def test_ranges_oldest_first_or_newest_first() -> None:
    plan = PlanSettings(range_size=1000, chunk_size=100, headroom=10)
    assert fetch_limit(3500, plan) == 3490
    refs = group_ranges("g", 1500, 3490, plan)
    assert [(r.first, r.last) for r in refs] == [(1000, 1999), (2000, 2999), (3000, 3999)]
    newest = PlanSettings(range_size=1000, chunk_size=100, newest_first=True)
    assert [r.first for r in group_ranges("g", 1500, 3490, newest)] == [3000, 2000, 1000]
    assert group_ranges("g", 10, 5, plan) == []
    with pytest.raises(ValueError):
        PlanSettings(range_size=0)


def test_missing_spans_follow_the_grid_and_skip_what_is_stored() -> None:
    stored = [entry(2200, 2399), entry(2500, 2549)]
    spans = missing_spans(REF, stored, low=0, limit=10_000, chunk_size=200)
    assert spans == [(2000, 2199), (2400, 2499), (2550, 2599), (2600, 2799), (2800, 2999)]


def test_cells_below_the_low_mark_become_one_chunk() -> None:
    spans = missing_spans(REF, [], low=2650, limit=10_000, chunk_size=100)
    assert spans[0] == (2000, 2599)  # six expired cells, one command
    assert spans[1:] == [(2600, 2699), (2700, 2799), (2800, 2899), (2900, 2999)]


def test_the_limit_cuts_the_newest_chunk_short() -> None:
    assert missing_spans(REF, [], low=0, limit=2250, chunk_size=200) == [
        (2000, 2199),
        (2200, 2250),
    ]
    # the next pass goes on from there, and back on the grid
    spans = missing_spans(REF, [entry(2000, 2199), entry(2200, 2250)], 0, 2700, 200)
    assert spans == [(2251, 2399), (2400, 2599), (2600, 2700)]


def test_usable_chunks_drop_overlaps_and_strays() -> None:
    entries = [entry(2000, 2099), entry(2000, 2199), entry(2100, 2199), entry(2150, 2300),
               entry(2301, 2400), entry(3000, 3100)]  # fmt: skip
    assert [(c.first, c.last) for c in usable_chunks(entries, REF)] == [
        (2000, 2199),
        (2301, 2400),
    ]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(2000, 2999), st.integers(0, 300)), max_size=8),
    st.integers(1, 400),
    st.integers(1500, 3100),
    st.integers(1900, 3200),
)
def test_stored_and_missing_tile_the_range_exactly(
    raw: list[tuple[int, int]], chunk: int, low: int, limit: int
) -> None:
    stored = usable_chunks([entry(a, min(a + n, 2999)) for a, n in raw], REF)
    spans = missing_spans(REF, stored, low, limit, chunk)
    covered = sorted([(c.first, c.last) for c in stored] + spans)
    upto = min(REF.last, limit)
    at = REF.first
    for first, last in covered:
        if first > upto:
            break
        assert first == at, (covered, at)  # no gap, no overlap
        at = last + 1
    assert at > upto or (not covered and upto < REF.first)
    for first, last in spans:
        assert first <= last <= upto
