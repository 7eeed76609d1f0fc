"""The frontier kernel against its reference, and the behaviour the window relies on."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import frontier as fk
from tests.reference import frontier as ref

BASE = 1_700_000_000


def _both(chunks):
    """Each chunk (dates, ok) or (dates, ok, posters) through the kernel and the reference."""
    state = fk.FrontierState()
    rstate = {"frontier": 0, "ring": [], "odd": []}
    for dates, ok, *rest in chunks:
        posters = rest[0] if rest else None
        arr = None if posters is None else np.array(posters, np.uint64)
        got = fk.advance(state, np.array(dates, np.int64), np.array(ok, np.bool_), arr)
        want = ref.advance(rstate, list(dates), list(ok), posters)
        assert got.tolist() == want
        assert state.frontier == rstate["frontier"]
    return state


date_st = st.one_of(
    st.integers(BASE - 3600 * 48, BASE + 3600 * 48),  # a normal spread
    st.integers(0, 100),  # 1970
    st.integers(4_000_000_000, 4_100_000_000),  # 2099
)
chunk_st = st.lists(st.tuples(date_st, st.booleans()), max_size=300).map(
    lambda rows: ([d for d, _ in rows], [o for _, o in rows])
)
# a few posters (0 and hashes that share a slot of the posters' table among them)
SHARED_SLOT = [1 << 63, (1 << 63) + 1]
poster_st = st.sampled_from([0, 1, 2, 12345678901234567, *SHARED_SLOT])
posted_chunk_st = st.lists(st.tuples(date_st, st.booleans(), poster_st), max_size=300).map(
    lambda rows: ([d for d, _, _ in rows], [o for _, o, _ in rows], [p for _, _, p in rows])
)


@settings(max_examples=150, deadline=None)
@given(st.lists(chunk_st, min_size=1, max_size=5))
def test_matches_reference(chunks):
    _both(chunks)


@settings(max_examples=150, deadline=None)
@given(st.lists(posted_chunk_st, min_size=1, max_size=5))
def test_matches_reference_with_posters(chunks):
    _both(chunks)


def test_a_bogus_date_takes_its_posters_last_date():
    """An upload's article dated 2099 after another poster's line 7 hours ahead: it takes
    its own poster's last date, not the line's before it (which split an upload)."""
    upload = [BASE + i * 30 for i in range(40)]
    dates = [*upload, BASE + 40 * 30 + 7 * 3600, 4_085_340_259, BASE + 41 * 30]
    posters = [7] * 40 + [8, 7, 7]
    state = _both([(dates, [True] * len(dates), posters)])
    eff = fk.advance(
        fk.FrontierState(), np.array(dates), np.ones(len(dates), bool), np.array(posters, np.uint64)
    )
    assert eff[41] == upload[-1]
    assert state.frontier > 0
    # a poster whose last date is no longer plausible (the group moved on a month since):
    # the line before
    stale = fk.FrontierState()
    fk.advance(stale, np.array([BASE] * 2000), np.ones(2000, bool), np.full(2000, 9, np.uint64))
    late = [BASE + 30 * 86400 + i for i in range(1100)]
    eff = fk.advance(
        stale,
        np.array([*late, 5]),
        np.ones(1101, bool),
        np.array([10] * 1100 + [9], np.uint64),
    )
    assert stale.frontier > BASE + 29 * 86400
    assert eff[-1] == late[-1]
    # a poster never seen: the line before
    unseen = fk.advance(
        fk.FrontierState(),
        np.array([BASE] * 10 + [5]),
        np.ones(11, bool),
        np.array([1] * 10 + [2], np.uint64),
    )
    assert unseen[-1] == BASE


def test_posters_and_dates_of_one_length():
    with pytest.raises(ValueError, match="2 dates, 2 flags and 1 posters"):
        fk.advance(
            fk.FrontierState(), np.array([BASE, BASE]), np.ones(2, bool), np.ones(1, np.uint64)
        )


def test_jump_after_a_long_pause_moves_the_frontier():
    old = [BASE + i for i in range(2000)]
    new = [BASE + 30 * 86400 + i for i in range(1500)]
    state = _both([(old, [True] * 2000), (new[:700], [True] * 700), (new[700:], [True] * 800)])
    assert state.frontier > BASE + 29 * 86400


def test_bogus_dates_take_the_frontier():
    dates = [BASE + i * 60 for i in range(100)] + [5, 4_000_000_000] + [BASE + 6000]
    state = fk.FrontierState()
    eff = fk.advance(state, np.array(dates), np.ones(len(dates), bool))
    assert eff[100] == eff[101] == BASE + 99 * 60  # the last good date before them
    assert eff[102] == BASE + 6000


def test_large_random_input_matches_reference():
    rng = np.random.default_rng(5)
    chunks = []
    for c in range(6):
        dates = BASE + c * 86400 * 5 + rng.integers(-20000, 20000, 3000)
        dates[rng.random(3000) < 0.05] = 4_000_000_000
        chunks.append((dates.tolist(), (rng.random(3000) > 0.02).tolist()))
    _both(chunks)


def test_a_burst_of_one_skewed_poster_does_not_make_the_frontier():
    """676 of the last 1,024 lines from one poster whose clock runs 14 h ahead: the
    frontier stays with the others (the plain median took the burst's clock)."""
    rng = np.random.default_rng(9)
    others = BASE + np.sort(rng.integers(0, 3600, 348))
    burst = BASE + 14 * 3600 + np.arange(676) * 5
    dates = np.concatenate([others[:200], burst, others[200:]])
    posters = np.concatenate(
        [rng.integers(1, 60, 200), np.full(676, 999), rng.integers(1, 60, 148)]
    ).astype(np.uint64)
    state = _both([(dates.tolist(), [True] * len(dates), posters.tolist())])
    assert abs(state.frontier - BASE) < 3600
    assert np.median(dates) > BASE + 13 * 3600  # what the plain median gave
