"""kernels.gather.gather_values against its reference, and the checks before the kernels."""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.gather import binary_columns, gather_values
from tests.reference import gather as ref


def _parts(column: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(data, offsets) of an Arrow binary column, a slice of one included."""
    _, offsets, data = column.buffers()
    first = column.offset
    values = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    return values, np.frombuffer(offsets, np.int32)[first : first + len(column) + 1]


# values with empty ones and the bytes XML and UTF-8 care about; columns sliced as the
# batches' columns are (an offset into a longer buffer)
values = st.lists(st.binary(max_size=40) | st.sampled_from([b"", b"<a&b>", b"\xff\xfe"]))
columns = st.lists(
    st.tuples(values, st.integers(0, 3)).map(lambda t: pa.array(t[0], pa.binary())[t[1] :]),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(columns, st.data())
def test_matches_reference(cols, data):
    total = sum(len(c) for c in cols)
    where = data.draw(st.lists(st.integers(0, total - 1), max_size=40) if total else st.just([]))
    columns = binary_columns(*_lists(cols))
    got_places, got_data, got_ascii = gather_values(columns, np.array(where, np.int64))
    got = [got_data[a:z].tobytes() for a, z in itertools.pairwise(got_places)]
    datas = [bytes(d) for d, _ in map(_parts, cols)]
    offsets = [o.tolist() for _, o in map(_parts, cols)]
    want = ref.gather_values(datas, offsets, where)
    assert got == want
    assert got_ascii == ref.is_ascii(want)
    assert got_places[0] == 0 and len(got_places) == len(where) + 1


def _lists(cols: list[pa.Array]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    parts = [_parts(c) for c in cols]
    return [d for d, _ in parts], [o for _, o in parts]


def test_bad_columns_and_places_are_refused():
    data = np.frombuffer(b"abcdef", np.uint8)
    with pytest.raises(ValueError, match="do not fit"):
        binary_columns([data], [np.array([0, 7], np.int32)])
    with pytest.raises(ValueError, match="do not fit"):
        binary_columns([data], [np.array([0, 4, 2], np.int32)])
    with pytest.raises(ValueError, match="integer"):
        binary_columns([data], [np.array([0, 2], np.float64)])
    with pytest.raises(ValueError, match="non-empty"):
        binary_columns([data], [np.zeros(0, np.int32)])
    with pytest.raises(ValueError, match="one offsets"):
        binary_columns([data], [])
    cols = binary_columns([data], [np.array([0, 2, 6], np.int32)])
    with pytest.raises(ValueError, match="outside"):
        gather_values(cols, np.array([2]))
    with pytest.raises(ValueError, match="outside"):
        gather_values(cols, np.array([-1]))
    places, out, ascii = gather_values(cols, np.array([1, 0, 1]))
    assert places.tolist() == [0, 4, 6, 10] and out.tobytes() == b"cdefabcdef" and ascii
    # int64 offsets (a large_binary column) beside int32 ones
    wide = binary_columns([data, data], [np.array([0, 2], np.int32), np.array([3, 6], np.int64)])
    places, out, ascii = gather_values(wide, np.array([1, 0]))
    assert out.tobytes() == b"defab" and ascii


def test_a_high_byte_anywhere_in_a_value_is_seen():
    """The ASCII verdict covers a value's 8-byte words and its tail bytes, a byte above
    127 at every position of values of every length around the word size."""
    for length in range(1, 20):
        for at in range(length):
            value = bytearray(b"a" * length)
            value[at] = 0x80 | at
            data = np.frombuffer(b"xyz" + bytes(value) + b"q", np.uint8)
            cols = binary_columns([data], [np.array([0, 3, 3 + length, 4 + length], np.int32)])
            for where in ([1], [0, 1, 2], [2, 1]):
                _, out, ascii = gather_values(cols, np.array(where))
                assert not ascii, (length, at, where)
                assert bytes(value) in out.tobytes()
            _, _, ascii = gather_values(cols, np.array([0, 2]))
            assert ascii
