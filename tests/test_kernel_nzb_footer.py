"""kernels.parquet_footer against its reference, and one-row-group footers read right."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import parquet_footer
from tests.reference import parquet_footer as ref


def _footer(table: pa.Table, **options) -> tuple[bytes, bytes]:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    raw = sink.getvalue()
    size = int.from_bytes(raw[-8:-4], "little")
    return raw, raw[-8 - size : -8]


def _spans(footer: bytes) -> tuple[int, int, list[tuple[int, int]]]:
    head, end, spans = parquet_footer.row_group_spans(np.frombuffer(footer, np.uint8))
    return head, end, [tuple(s) for s in spans.tolist()]


COLUMNS = {
    "key": lambda rng, n: pa.array([rng.bytes(20) for _ in range(n)], pa.binary(20)),
    "number": lambda rng, n: pa.array(rng.integers(-(2**40), 2**40, n)),
    "flag": lambda rng, n: pa.array(rng.random(n) < 0.5),
    "ratio": lambda rng, n: pa.array(rng.random(n)),
    "name": lambda rng, n: pa.array([f"n{v}&<é>" * int(v % 4) for v in rng.integers(0, 99, n)]),
    "ids": lambda rng, n: pa.array([[f"{v}@x"] * int(v % 5) for v in rng.integers(0, 99, n)]),
    "maybe": lambda rng, n: pa.array([None if v % 3 else int(v) for v in rng.integers(0, 9, n)]),
    "nested": lambda rng, n: pa.array([{"a": int(v), "b": [f"{v}"]} for v in rng.random(n) * 9]),
    "mapped": lambda rng, n: pa.array([[("k", int(v))] for v in rng.integers(0, 9, n)],
                                      pa.map_(pa.string(), pa.int64())),
}  # fmt: skip


@st.composite
def parquet_files(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    n = draw(st.integers(0, 300))
    names = draw(st.lists(st.sampled_from(sorted(COLUMNS)), min_size=1, max_size=5, unique=True))
    table = pa.table({name: COLUMNS[name](rng, n) for name in names})
    options = {
        "row_group_size": draw(st.integers(1, 120)),
        "write_statistics": draw(st.booleans()),
        "compression": draw(st.sampled_from(["zstd", "snappy", "none"])),
        "use_dictionary": draw(st.booleans()),
    }
    return table, options


@settings(max_examples=60, deadline=None)
@given(parquet_files())
def test_spans_match_the_reference_and_read_each_row_group(case):
    table, options = case
    raw, footer = _footer(table, **options)
    got = _spans(footer)
    assert got == ref.row_group_spans(footer)
    head, end, spans = got
    whole = pq.ParquetFile(io.BytesIO(raw))
    assert len(spans) == whole.metadata.num_row_groups
    for g, (start, stop) in enumerate(spans):
        one = footer[:head] + b"\x1c" + footer[start:stop] + footer[end:]
        meta = pq.read_metadata(io.BytesIO(one + len(one).to_bytes(4, "little") + b"PAR1"))
        assert meta.num_row_groups == 1
        reader = pq.ParquetFile(io.BytesIO(raw), metadata=meta)
        assert reader.read_row_group(0).equals(whole.read_row_group(g))


def _same_outcome(footer: bytes) -> None:
    try:
        want = ref.row_group_spans(footer)
    except ValueError:
        with pytest.raises(ValueError):
            _spans(footer)
        return
    assert _spans(footer) == want


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_damaged_footers_fail_cleanly_like_the_reference(data):
    """Truncated, overwritten and random footers: an error or the reference's answer,
    never a crash or a read past the buffer."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    table = pa.table({"key": COLUMNS["key"](rng, 50), "ids": COLUMNS["ids"](rng, 50)})
    _, footer = _footer(table, row_group_size=10)
    damaged = bytearray(footer)
    how = data.draw(st.sampled_from(["truncate", "overwrite", "insert", "random"]))
    if how == "truncate":
        damaged = damaged[: data.draw(st.integers(0, len(footer)))]
    elif how == "overwrite":
        for _ in range(data.draw(st.integers(1, 4))):
            damaged[data.draw(st.integers(0, len(footer) - 1))] = data.draw(st.integers(0, 255))
    elif how == "insert":
        at = data.draw(st.integers(0, len(footer)))
        damaged[at:at] = data.draw(st.binary(min_size=1, max_size=8))
    else:
        damaged = bytearray(data.draw(st.binary(max_size=200)))
    _same_outcome(bytes(damaged))


def test_deep_nesting_and_huge_counts_are_refused():
    deep = b"\x1c" * 200  # field 1 a struct, whose field 1 is a struct, ...
    huge = (b"\x19\xfc\xff\xff\xff\xff\x0f", b"\x49\xfc\xff\xff\xff\x0f", b"\x1b\xff\xff\x03\x88")
    for footer in (deep, *huge, b"\x10", b""):
        _same_outcome(footer)
        with pytest.raises(ValueError):
            _spans(footer)


def test_an_empty_table_and_a_footer_without_row_groups():
    _, footer = _footer(pa.table({"a": pa.array([], pa.int64())}))
    assert _spans(footer) == ref.row_group_spans(footer)  # one empty row group
    head, end, _ = _spans(footer)
    none = footer[:head] + b"\x0c" + footer[end:]  # the list emptied
    assert _spans(none) == ref.row_group_spans(none) == (head, head + 1, [])
