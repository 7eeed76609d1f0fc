"""kernels.nzb_segments against its reference, and the NZB writer against a per-segment one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import nzb_segments
from pipelines.nzb.writer import NzbFile, write_nzb, xml_text
from tests.reference import nzb_segments as ref

# Bytes that make message-ids hostile: markup, brackets to strip, controls, U+FFFE/FFFF,
# surrogates and other malformed UTF-8, multi-byte characters.
HOSTILE = [b"&", b"<", b">", b'"', b"\x00", b"\x01", b"\t", b"\r", b"\n", b"\x7f",
           b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\xed\xa0\x80", b"\xc3\xa9", "日".encode(),
           b"\xf0\x9f\x98\x80", b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xf4\x90\x80\x80",
           b"\xc0\xaf", b"\xe0\x80\xaf", b"a", b"@", b"."]  # fmt: skip

message_ids = st.lists(st.one_of(st.sampled_from(HOSTILE), st.binary(max_size=4)), max_size=12).map(
    b"".join
)
int64s = st.integers(-(2**63), 2**63 - 1)


@st.composite
def segments(draw):
    ids = draw(st.lists(message_ids, max_size=30))
    n = len(ids)
    numbers = draw(st.lists(st.one_of(st.integers(0, 10**6), int64s), min_size=n, max_size=n))
    sizes = draw(st.lists(st.one_of(st.integers(0, 10**6), int64s), min_size=n, max_size=n))
    source = draw(st.lists(st.integers(0, n - 1), max_size=40)) if n else []
    return numbers, sizes, source, ids


def _run(numbers, sizes, source, ids):
    offsets = np.concatenate([[0], np.cumsum([len(i) for i in ids], dtype=np.int64)])
    data = b"".join(ids)
    got, ends = nzb_segments.segment_lines(
        np.array(numbers, np.int64), np.array(sizes, np.int64), np.array(source, np.int64),
        offsets, np.frombuffer(data, np.uint8),
    )  # fmt: skip
    want, want_ends = ref.segment_lines(numbers, sizes, source, offsets.tolist(), data)
    return got.tobytes(), ends.tolist(), want, want_ends


@settings(max_examples=300, deadline=None)
@given(segments())
def test_segment_lines_match_the_reference(case):
    got, ends, want, want_ends = _run(*case)
    assert got == want
    assert ends == want_ends


@settings(max_examples=300, deadline=None)
@given(message_ids)
def test_escaping_is_the_writers_on_valid_text(raw):
    """On text (what Arrow hands over), the kernel writes what `xml_text` of the stripped
    id writes, and the line is well-formed UTF-8 with nothing XML cannot carry."""
    got, *_ = _run([1], [2], [0], [raw])
    text = raw.decode("utf-8", "ignore")
    expected = f'   <segment bytes="2" number="1">{xml_text(text.strip("<>"))}</segment>\n'
    assert got.decode("utf-8") == expected


def test_hostile_message_ids():
    cases = {
        b"<a@b>": "a@b",
        b"<<a&b>>": "a&amp;b",
        b'x<"y">z': "x&lt;&quot;y&quot;&gt;z",
        b"\x01<a>": "&lt;a",  # the control shields the bracket from the strip, then goes
        b"\xff<a>\xfe": "a",  # malformed bytes go before the brackets are stripped
        b"<\x01>": "",
        b"a\xef\xbf\xbeb\xed\xa0\x80c": "abc",
        b"\xe2\x82\xe2\x82\xac": "\u20ac",
        b"": "",
    }
    for raw, want in cases.items():
        got, *_ = _run([7], [9], [0], [raw])
        assert got.decode() == f'   <segment bytes="9" number="7">{want}</segment>\n', raw


def test_extreme_numbers():
    got, *_ = _run([-(2**63), 2**63 - 1, 0, -1], [10, -10, 9, 100], [0, 1, 2, 3], [b"m"] * 4)
    lines = got.decode().splitlines()
    assert 'number="-9223372036854775808"' in lines[0]
    assert 'bytes="-10" number="9223372036854775807"' in lines[1]
    assert 'bytes="100" number="-1"' in lines[3]


def test_bad_input_is_refused():
    data = np.frombuffer(b"abc", np.uint8)
    one = np.array([1], np.int64)
    with pytest.raises(ValueError, match="one of each per segment"):
        nzb_segments.segment_lines(one, np.array([1, 2]), np.array([0]), np.array([0, 3]), data)
    with pytest.raises(ValueError, match="outside the segments"):
        nzb_segments.segment_lines(one, one, np.array([1]), np.array([0, 3]), data)
    with pytest.raises(ValueError, match="offsets"):
        nzb_segments.segment_lines(one, one, np.array([0]), np.array([0, 4]), data)
    with pytest.raises(ValueError, match="offsets"):
        nzb_segments.segment_lines(
            np.array([1, 2]), np.array([1, 2]), np.array([0]), np.array([0, 2, 1]), data
        )


def _reference_document(files: list[NzbFile], meta: list[tuple[str, str]]) -> bytes:
    """The NZB as a plain f-string per line (the writer before its kernel, in spirit)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    out.append('<!DOCTYPE nzb PUBLIC "-//newzBin//DTD NZB 1.1//EN" '
               '"http://www.newzbin.com/DTD/nzb/nzb-1.1.dtd">\n')  # fmt: skip
    out.append('<nzb xmlns="http://www.newzbin.com/DTD/2003/nzb">\n')
    if meta:
        out.append(" <head>\n")
        out += [f'  <meta type="{xml_text(k)}">{xml_text(v)}</meta>\n' for k, v in meta]
        out.append(" </head>\n")
    for f in files:
        out.append(f' <file poster="{xml_text(f.poster)}" date="{f.date}" '
                   f'subject="{xml_text(f.subject)}">\n  <groups>\n')  # fmt: skip
        out += [f"   <group>{xml_text(g)}</group>\n" for g in f.groups]
        out.append("  </groups>\n  <segments>\n")
        for number, size, mid in zip(f.numbers, f.sizes, f.message_ids, strict=True):
            mid = xml_text(str(mid).strip("<>"))
            out.append(f'   <segment bytes="{size}" number="{number}">{mid}</segment>\n')
        out.append("  </segments>\n </file>\n")
    out.append("</nzb>\n")
    return "".join(out).encode("utf-8", "surrogatepass")


texts = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("&<>\"\x01\ufffe"),
                max_size=12)  # fmt: skip


@st.composite
def nzb_files(draw):
    files = []
    for _ in range(draw(st.integers(0, 4))):
        n = draw(st.integers(0, 6))
        files.append(NzbFile(
            subject=draw(texts), poster=draw(texts), date=draw(st.integers(0, 2**40)),
            groups=draw(st.lists(texts, max_size=2)),
            numbers=np.array(draw(st.lists(st.integers(1, 10**5), min_size=n, max_size=n))),
            sizes=np.array(draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n))),
            message_ids=draw(st.lists(texts, min_size=n, max_size=n)),
        ))  # fmt: skip
    return files


@settings(max_examples=200, deadline=None)
@given(nzb_files(), st.lists(st.tuples(texts, texts), max_size=2))
def test_writer_is_byte_identical_to_a_line_by_line_writer(files, meta):
    assert write_nzb(files, meta) == _reference_document(files, meta)
