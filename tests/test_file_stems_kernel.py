"""kernels.file_stems against the plain-Python rule it runs column-wise
(`pipelines.predb.keys.file_stem`): names made of real endings in every case, random
bytes, non-ASCII look-alikes, nulls, and a sliced column."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.predb import keys as K

_ENDINGS = [
    "rar", "RAR", "par2", "PAR2", "mkv", "Mkv", "7z", "nfo", "jpeg", "azw3", "part01",
    "PART1234", "part12345", "vol03+04", "VOL0-1", "vol123456+1", "r00", "R123", "r1234",
    "s01", "S1", "001", "0001", "zip", "x", "", "partx", "vol1+", "r1", "ſ01", "m\u212av",
    "١٢٣", "ziP ", "tar",
]  # fmt: skip


def _column(names: Sequence[str | None]) -> list[str]:
    return K.file_stems(pa.array(names, pa.string())).to_pylist()


@settings(max_examples=600, deadline=None)
@given(
    st.text(alphabet="aB9 ._-[]é", max_size=12),
    st.lists(st.sampled_from(_ENDINGS), max_size=5),
)
def test_real_endings(base: str, endings: list[str]) -> None:
    name = ".".join([base, *endings])
    assert _column([name]) == [K.file_stem(name)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=20))
def test_any_text(names: list[str]) -> None:
    assert _column(names) == [K.file_stem(n) for n in names]


def test_nulls_slices_and_chunks() -> None:
    names = ["a.part01.rar", None, "b.vol03+04.par2", "c.7z.001", ".rar", "d", "e.f.g.nfo.rar"]
    want = ["a", "", "b", "c", ".rar", "d", "e.f.g"]
    assert _column(names) == want
    arr = pa.array(names, pa.string())
    assert K.file_stems(arr.slice(2, 3)).to_pylist() == want[2:5]
    chunked = pa.chunked_array([arr.slice(0, 3), arr.slice(3)])
    assert K.file_stems(chunked).to_pylist() == want
    assert K.file_stems(pa.array(names, pa.large_string())).to_pylist() == want
    assert K.file_stems(pa.array([], pa.string())).to_pylist() == []
    assert K.file_stems(pa.array(["", ""], pa.string())).to_pylist() == ["", ""]


def test_at_most_three_endings_come_off() -> None:
    assert _column(["x.part01.rar.nfo.zip"]) == ["x.part01"]
    assert K.file_stem("x.part01.rar.nfo.zip") == "x.part01"
