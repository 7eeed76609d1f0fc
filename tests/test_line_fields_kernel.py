"""kernels.line_fields against its reference and against the one-field kernels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import scan as sc
from kernels.fields import DATE_CACHE, parse_dates, parse_uint, xref_owner
from kernels.hashing import hash_bytes, hash_spans
from kernels.line_fields import line_fields
from tests.reference import line_fields as ref
from tests.test_fields_kernel import BAD_DATES, COMMON_DATES, GROUPS, REAL_DATES, TURNING_DATES

FIELDS = ("from", "date", "bytes", "xref")
COLUMN = {"from": sc.F_FROM, "date": sc.F_DATE, "bytes": sc.F_BYTES, "xref": sc.F_XREF}
GROUP_HASHES = np.array([hash_bytes(g) for g in GROUPS], np.uint64)


def _index(
    lines: list[dict[str, bytes]],
) -> tuple[bytes, np.ndarray, np.ndarray, list[dict[str, tuple[int, int]]]]:
    """A chunk of the lines' fields, tab-separated as in an overview line, and its field
    bounds laid out as kernels.scan lays them (one column a field)."""
    buf = bytearray()
    start = np.zeros((len(lines), sc.N_FIELDS), np.int64, order="F")
    end = np.zeros((len(lines), sc.N_FIELDS), np.int64, order="F")
    spans: list[dict[str, tuple[int, int]]] = []
    for i, line in enumerate(lines):
        spans.append({})
        for name in FIELDS:
            start[i, COLUMN[name]] = len(buf)
            buf += line[name]
            end[i, COLUMN[name]] = len(buf)
            spans[-1][name] = (int(start[i, COLUMN[name]]), len(buf))
            buf += b"\t"
        buf[-1:] = b"\r\n"
    # the other fields: empty, at the line's end
    for k in set(range(sc.N_FIELDS)) - set(COLUMN.values()):
        start[:, k] = end[:, k] = end[:, sc.F_XREF]
    return bytes(buf), start, end, spans


def _check(lines: list[dict[str, bytes]]) -> None:
    buf, start, end, spans = _index(lines)
    got = line_fields(buf, start, end, GROUP_HASHES)
    rows = list(
        zip(
            got.date.tolist(),
            got.date_ok.tolist(),
            got.owner.tolist(),
            got.nbytes.tolist(),
            got.poster.tolist(),
            strict=True,
        )
    )
    assert rows == ref.line_fields(buf, spans, GROUPS)
    # and exactly what the one-field kernels give
    column = {name: (start[:, k], end[:, k]) for name, k in COLUMN.items()}
    date, ok = parse_dates(buf, *column["date"])
    assert np.array_equal(got.date, date) and np.array_equal(got.date_ok, ok)
    assert np.array_equal(got.owner, xref_owner(buf, *column["xref"], GROUP_HASHES)[0])
    assert np.array_equal(got.nbytes, parse_uint(buf, *column["bytes"]))
    assert np.array_equal(got.poster, hash_spans(buf, *column["from"]))


# fields as a few posters' runs of segments give them: repeated, a second apart, or odd
posters = st.sampled_from([b"a <a@b.c>", b"poster@example.com (P)", b"", b"x" * 70])
dates = st.one_of(
    st.sampled_from([*REAL_DATES, *BAD_DATES, *COMMON_DATES]),
    st.tuples(
        st.sampled_from([b"Wed, 08 Jun 2016 12:20:{} +0100", b"8 Jun 2016 06:41:{} UT"]),
        st.sampled_from([b"00", b"09", b"59", b"60", b"61", b"6x"]),
    ).map(lambda t: t[0].replace(b"{}", t[1])),
    st.binary(max_size=40),
)
sizes = st.one_of(
    st.integers(0, 10**19).map(lambda n: str(n).encode()),
    st.sampled_from([b"", b" 12 ", b"1x", b"-5"]),
)
xrefs = st.tuples(
    st.sampled_from(
        [b"Xref: h alt.binaries.boneless:", b"Xref: h alt.binaries.teevee:", b"h a:1 b:", b""]
    ),
    st.sampled_from([b"1", b"77", b"9" * 19, b"", b"1x"]),
).map(b"".join)
lines = st.lists(
    st.fixed_dictionaries({"from": posters, "date": dates, "bytes": sizes, "xref": xrefs}),
    max_size=25,
).map(lambda items: [line for line in items for _ in range(1 + len(line["date"]) % 3)])


@settings(max_examples=300, deadline=None)
@given(lines)
def test_matches_reference_and_the_one_field_kernels(items):
    _check(items)


def test_dates_of_more_shapes_than_the_date_cache_keeps():
    # more posters' Dates in turns than the cache keeps, seconds counting up: it turns over
    shapes = TURNING_DATES
    assert len(shapes) > DATE_CACHE
    items = [
        {"from": b"p%d" % k, "date": shape % s, "bytes": b"%d" % s, "xref": b"h g:%d" % s}
        for s in range(62)
        for k, shape in enumerate(shapes[: 1 + s % len(shapes)])
    ]
    _check(items)


def test_empty_fields_and_no_lines():
    _check([{"from": b"", "date": b"", "bytes": b"", "xref": b""}] * 3)
    _check([])


def test_a_generated_range_matches_the_one_field_kernels():
    from pipelines.generate import generate_range_lines

    data, first, last = generate_range_lines(n_lines=20_000, seed=3)
    ix = sc.scan_chunk(data, first, last)
    fs, fe = ix.field_start, ix.field_end
    got = line_fields(data, fs, fe, GROUP_HASHES)
    date, ok = parse_dates(data, fs[:, sc.F_DATE], fe[:, sc.F_DATE])
    assert np.array_equal(got.date, date) and np.array_equal(got.date_ok, ok)
    owner = xref_owner(data, fs[:, sc.F_XREF], fe[:, sc.F_XREF], GROUP_HASHES)[0]
    assert np.array_equal(got.owner, owner)
    assert np.array_equal(got.nbytes, parse_uint(data, fs[:, sc.F_BYTES], fe[:, sc.F_BYTES]))
    assert np.array_equal(got.poster, hash_spans(data, fs[:, sc.F_FROM], fe[:, sc.F_FROM]))
    assert ok.mean() > 0.9 and (got.nbytes > 0).mean() > 0.9  # real fields were read


def test_bad_bounds_are_refused():
    buf, start, end, _ = _index([{"from": b"a", "date": b"b", "bytes": b"1", "xref": b"x"}])
    with pytest.raises(ValueError, match="two shapes"):
        line_fields(buf, start, end[:, :3], GROUP_HASHES)
    end[0, sc.F_DATE] = len(buf) + 1
    with pytest.raises(ValueError, match="spans must satisfy"):
        line_fields(buf, start, end, GROUP_HASHES)
