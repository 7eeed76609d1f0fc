"""The frontier kernel against its reference, and the behaviour the window relies on."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import frontier as fk
from kernels.reference import frontier as ref

BASE = 1_700_000_000


def _both(chunks):
    state = fk.FrontierState()
    rstate = {"frontier": 0, "ring": [], "odd": []}
    for dates, ok in chunks:
        got = fk.advance(state, np.array(dates, np.int64), np.array(ok, np.bool_))
        want = ref.advance(rstate, list(dates), list(ok))
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


@settings(max_examples=150, deadline=None)
@given(st.lists(chunk_st, min_size=1, max_size=5))
def test_matches_reference(chunks):
    _both(chunks)


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
