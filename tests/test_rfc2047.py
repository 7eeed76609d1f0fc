"""RFC 2047 decoding of subjects: the flag kernel, the decoder, and the moved spans."""

from __future__ import annotations

from email.header import Header

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.subject import flag_encoded_words, parse_subjects
from pipelines.rfc2047 import decode_subject, decode_subjects, decode_texts


def _spans(items: list[bytes]) -> tuple[bytes, np.ndarray, np.ndarray]:
    end = np.cumsum([len(x) for x in items], dtype=np.int64)
    start = end - np.array([len(x) for x in items], dtype=np.int64)
    return b"".join(items), start, end


def _flag_reference(s: bytes) -> bool:
    i = s.find(b"=?")
    return i >= 0 and s.find(b"?=", i + 2) >= 0


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([b"=", b"?", b"=?", b"?=", b"x", b" ", b"\xff"]), max_size=10).map(
            b"".join
        ),
        max_size=10,
    )
)
def test_flag_matches_reference(items):
    assert flag_encoded_words(*_spans(items)).tolist() == [_flag_reference(s) for s in items]


def test_base64_word_hiding_the_part_counter():
    assert decode_subject(b'"x.rar" yEnc =?UTF-8?B?KDEvNSk=?=') == b'"x.rar" yEnc (1/5)'


def test_q_words_adjacent_words_and_charsets():
    cases = {
        b"=?utf-8?q?Caf=C3=A9_au_lait?= =?UTF-8?B?IChtZSk=?= [1/2]": "Café au lait (me) [1/2]",
        b"=?iso-8859-1?q?=E9t=E9?= 2013": "été 2013",
        b"=?windows-1251?B?z/Du4uXw6uA=?=": "Проверка",
        b"=?ISO-2022-JP?B?GyRCJUYlOSVIGyhC?=": "テスト",
        b"=?UTF-8*en?Q?hello?=": "hello",
        b"a =?utf-8?q?b?= c": "a b c",
    }
    for raw, text in cases.items():
        assert decode_subject(raw) == text.encode("utf-8"), raw


def test_undecodable_words_are_left_as_sent():
    for raw in [
        b"=?bogus-charset?q?abc?=",
        b"=?utf-8?b?!!!?=",
        b"=?utf-8?q?=FF?=",
        b"=?utf-8?x?abc?=",
        b"=? nope ?=",
        b"plain \xe9t\xe9 latin-1",
    ]:
        assert decode_subject(raw) == raw


@settings(max_examples=200, deadline=None)
@given(
    st.text(st.characters(whitelist_categories=("L", "N", "P", "S")), min_size=1, max_size=80),
    st.sampled_from(["utf-8", "iso-8859-1", "utf-16"]),
)
def test_round_trip_through_the_standard_library_encoder(text, charset):
    try:
        text.encode(charset)
    except UnicodeEncodeError:
        return
    encoded = Header(text, charset, maxlinelen=10000).encode().replace("\n", "")
    assert decode_subject(encoded.encode("ascii")) == text.encode("utf-8")


def test_decode_subjects_spans_index_the_returned_buffer():
    subjects = [
        b"plain (1/2)",
        b"=?UTF-8?B?KDEvNSk=?= name",
        b"=?bogus?q?x?=",
        b"\xe9 raw",
        b"=?windows-1251?B?z/Du4uXw6uA=?= (2/9)",  # decoded in Python
        b"=?koi8-r?b?!!?= =?utf-8?q?=FF?=",  # left to Python, unchanged there
    ]
    data, start, end = _spans(subjects)
    buf, new_start, new_end = decode_subjects(data, start, end)
    got = [bytes(buf[a:b]) for a, b in zip(new_start, new_end, strict=True)]
    assert got == [
        b"plain (1/2)",
        b"(1/5) name",
        b"=?bogus?q?x?=",
        b"\xe9 raw",
        "Проверка (2/9)".encode(),
        b"=?koi8-r?b?!!?= =?utf-8?q?=FF?=",
    ]
    parts = parse_subjects(buf, new_start, new_end).part
    assert parts.tolist() == [1, 1, -1, -1, 2, -1]


def test_a_share_of_the_lines_costs_a_share_of_the_bytes():
    subjects = [b"x" * 100 + b" (1/2)"] * 99 + [b"=?utf-8?q?caf=C3=A9?= (1/2)"]
    data, start, end = _spans(subjects)
    buf, s, e = decode_subjects(data, start[-2:], end[-2:])
    assert [bytes(buf[a:b]) for a, b in zip(s, e, strict=True)] == [
        b"x" * 100 + b" (1/2)",
        "café (1/2)".encode(),
    ]
    assert len(buf) < 200 < len(data)


def test_decode_texts_matches_decode_subject():
    subjects = [b"a =?utf-8?q?b?= =?utf-8?q?c?=", b"", b"=?koi8-r?B?8A==?=", b"=?x"]
    data, start, end = _spans(subjects)
    assert decode_texts(data, start, end) == [decode_subject(s) for s in subjects]
    assert decode_texts(data, start, end)[:3] == [b"a bc", b"", "П".encode()]


def test_nothing_encoded_returns_the_same_buffer():
    data, start, end = _spans([b"a (1/2)", b"b =? c", b""])
    arr = np.frombuffer(data, dtype=np.uint8)
    buf, s2, e2 = decode_subjects(arr, start, end)
    assert buf is arr and s2 is start and e2 is end
    buf, _, _ = decode_subjects(data, start, end)
    assert np.shares_memory(buf, np.frombuffer(data, dtype=np.uint8)) or buf.base is not None


def test_empty_chunk():
    buf, s, _ = decode_subjects(b"", np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert len(buf) == 0 and len(s) == 0
