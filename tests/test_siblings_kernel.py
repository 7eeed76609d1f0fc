"""kernels.siblings against its reference (the file-counter regex)."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kernels.siblings import NAMED, NAMELESS, NONE, key_hash, sibling_keys
from tests.reference import siblings as ref

# the bytes a file counter is made of, and a few that are not
_PIECES = ["[", "]", "(", ")", "/", " ", "\t", "-", "_", "1", "23", "File", "fIlE", "of", "OF",
           "x", "Name", ".", "\x0b", "é", "日本"]  # fmt: skip
subjects = st.lists(st.sampled_from(_PIECES), max_size=30).map(lambda p: "".join(p).encode())


def _reference_hash(subject: bytes, poster: int, total: int, kind: int) -> int:
    key = ref.sibling_key(subject, 1, total, poster, kind)
    assert key is not None
    return int(key_hash(*key))


@settings(max_examples=500, deadline=None)
# a prefix that strips to nothing, whose hashes once came back from numba as Python ints
@example([(b"", 0, 0, NONE), (b"[[[[[[[[[1/1", 1, 2, NAMED)])
# nameless: an empty prefix, a counter at the very start, file 0
@example([(b"[01/19] - x", 1, 19, NAMELESS), (b" (1/2)", 0, 2, NAMELESS), (b"1/2", 0, 2, NAMED)])
@given(
    st.lists(
        st.tuples(
            subjects,
            st.integers(-1, 3),
            st.integers(-1, 12),
            st.sampled_from([NONE, NAMED, NAMELESS]),
        ),
        max_size=20,
    )
)
def test_matches_reference(runs):
    subs = [r[0] for r in runs]
    poster = np.arange(len(runs), dtype=np.uint64) * np.uint64(977)
    index = np.array([r[1] for r in runs], np.int64)
    total = np.array([r[2] for r in runs], np.int64)
    kind = np.array([r[3] for r in runs], np.uint8)
    hashes, has, prefix = sibling_keys(subs, poster, index, total, kind)
    for i, (subject, fi, ft, k) in enumerate(runs):
        want = ref.sibling_key(subject, fi, ft, int(poster[i]), k)
        assert has[i] == (want is not None)
        if want is not None:
            assert prefix[i] == ref.prefix_end(subject, 8 if k == NAMED else 0)
            assert int(hashes[i]) == _reference_hash(subject, int(poster[i]), ft, k)


def test_counters_and_their_prefixes():
    cases = {
        b'My.Show.S01E01 [01/10] - "a.rar" yEnc (1/5)': b"My.Show.S01E01",
        b"Some Upload Name - File 3 of 12 - x": b"Some Upload Name",
        b"Some Upload Name - fIlE\t3  Of 12": b"Some Upload Name",
        b"A longer name ( 3 / 4)": b"A longer name",
        b"short (1/2)": None,  # the counter within the first 8 bytes
        b"abcdefghij(  12/": None,  # no total: not a counter
        b"no counter at all": None,
        b"Name 2023 - 1/2": b"Name 2023",
    }
    subs = list(cases)
    n = len(subs)
    ones = np.ones(n, np.int64)
    named = np.full(n, NAMED, np.uint8)
    _, has, prefix = sibling_keys(subs, np.zeros(n, np.uint64), ones, 4 * ones, named)
    for i, (subject, want) in enumerate(cases.items()):
        got = subject[: prefix[i]] if has[i] else None
        assert got == want, subject


def test_a_nameless_file_has_a_key_from_its_counter_alone():
    """`[01/19] - "01 - Track.mp3"`: no name before the counter, the prefix is empty; the
    tracks of one album share the key, file 0 included, another total or poster not."""
    subs = [
        b'[01/19] - "01 - Track.mp3" yEnc (1/4)',
        b'[02/19] - "02 - Other.mp3" yEnc (1/9)',
        b' [00/19] - "Album.nzb" yEnc (1/1) 12 kB',
        b'(3/19) "folder.jpg" - 1 MB - yEnc',
        b'[04/20] - "04 - Track.mp3"',
        b'[05/19] - "05.mp3"',
        b'"01 - a.mp3" yEnc (1/2)',
    ]
    n = len(subs)
    poster = np.array([1, 1, 1, 1, 1, 2, 1], np.uint64)
    index = np.array([1, 2, 0, 3, 4, 5, 1], np.int64)
    total = np.array([19, 19, 19, 19, 20, 19, -1], np.int64)
    hashes, has, prefix = sibling_keys(subs, poster, index, total, np.full(n, NAMELESS, np.uint8))
    assert has[:6].all() and not has[6]  # no counter, no key
    assert (prefix[:6] == 0).all()
    assert hashes[0] == hashes[1] == hashes[2] == hashes[3]
    assert hashes[4] != hashes[0] and hashes[5] != hashes[0]
    # named, the same subjects have none: too little before the counter
    _, has, _ = sibling_keys(subs, poster, index, total, np.full(n, NAMED, np.uint8))
    assert not has.any()


def test_case_of_ascii_letters_does_not_matter_and_poster_and_total_do():
    subs = [b"Big Upload Name [1/9]", b"BIG upload NAME [2/9]", b"Big Upload Name [1/9]"] * 2
    poster = np.array([1, 1, 2, 1, 1, 1], np.uint64)
    total = np.array([9, 9, 9, 9, 9, 8], np.int64)
    ones = np.ones(6, np.int64)
    hashes, has, _ = sibling_keys(subs, poster, ones, total, np.full(6, NAMED, np.uint8))
    assert has.all()
    assert hashes[0] == hashes[1] == hashes[3] == hashes[4]
    assert hashes[2] != hashes[0]  # another poster
    assert hashes[5] != hashes[0]  # another total
