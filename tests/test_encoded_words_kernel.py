"""kernels.encoded_words against its reference (Python's base64 and codecs)."""

from __future__ import annotations

import base64
import codecs

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.encoded_words import (
    CHARSET_NAMES,
    CODEC_OF,
    DECODED,
    FALLBACK,
    MAX_GROWTH,
    UNCHANGED,
    decode_encoded_words,
)
from pipelines.subjects import encoded_words as ref


def _b(charset: str, raw: bytes, pad: bool = True) -> bytes:
    text = base64.b64encode(raw)
    return b"=?" + charset.encode() + b"?B?" + (text if pad else text.rstrip(b"=")) + b"?="


# pieces that put words, near-words and broken words side by side
FRAGMENTS = [
    _b("UTF-8", "Café".encode()),
    _b("utf8", "Проверка".encode(), pad=False),
    _b("Utf-8", b"(1/5)"),
    _b("US-ASCII", b"a_b"),
    _b("ascii", b"\xe9"),  # not ASCII: left as sent
    _b("ISO-8859-1", "été".encode("latin-1")),
    _b("latin1", b"\x80\xff"),
    _b("windows-1252", b"\x80\x93\x94"),
    _b("cp1252", b"\x81"),  # a hole in Windows-1252
    _b("utf-8", b"\xed\xa0\x80"),  # a surrogate: invalid UTF-8
    _b("utf-8", b"\xc3"),  # cut sequence
    _b("utf-8", b"\xf4\x90\x80\x80"),  # above U+10FFFF
    _b("utf-8", b"\xe0\x80\xaf"),  # overlong
    _b("utf-8", "\U0001f600".encode()),
    b"=?UTF-8?B?QQ?=",  # padding missing
    b"=?UTF-8?B?QQ=?=",
    b"=?UTF-8?B?QUJD=?=",  # padding after a full group
    b"=?UTF-8?B?QUJDRA===?=",  # padding extra
    b"=?UTF-8?B?Q?=",  # one char too many
    b"=?UTF-8?B?QUI==?=",  # 3 data chars take one `=` at most
    b"=?UTF-8?B?QUJDRA=?=",
    b"=?UTF-8?B?=QUJD?=",
    b"=?utf-8?b?==?=",  # padding alone
    b"=?UTF-8?B?QU=JD?=",
    b"=?UTF-8?b?QR==?=",  # left-over bits set
    b"=?UTF-8?B?!!!?=",
    b"=?UTF-8?B??=",  # empty: decodes to nothing
    b"=?utf-8?q?Caf=C3=A9_au_lait?=",
    b"=?UTF-8?Q?a=3f=3Fb=5F?=",
    b"=?utf-8?Q?=G1=4=?=",  # bad hex
    b"=?utf-8?q?==41?=",
    b"=?utf-8?q?=FF?=",
    b"=?utf-8?q?\xc3\xa9raw?=",  # raw UTF-8 inside a Q word
    b"=?iso-8859-1?q?=E9t=E9_\xe9?=",
    b"=?windows-1252?Q?=80_=9D?=",
    b"=?cp1252?q?\x80?=",
    b"=?UTF-8*en?Q?hello?=",
    b"=?utf-8*?q?x?=",
    b"=?utf-8*en*x?B?KDEvNSk=?=",
    b"=?windows-1251?B?z/Du4uXw6uA=?=",  # charsets the kernel leaves to Python
    b"=?koi8-r?q?=F0?=",
    b"=?bogus?q?x?=",
    b"=?\xe9?q?x?=",
    b"=?utf-8?x?abc?=",
    b"=? nope ?=",
    b"=?utf-8?q?a b?=",
    b"=?utf-8?q?a\rb?=",  # the six bytes a bytes regex's \s matches end a word
    b"=?utf-8?q?a\x0bb?=",
    b"=?utf\x0c-8?q?a?=",
    b"=?utf-8?q?a\x1cb?=",  # \s of a str regex only
    b"=?utf-8*e\tn?q?a?=",
    b"=?utf-8?q?",
    b"=?utf-8?",
    b"=?",
    b"?=",
    b"=",
    b"?",
    b"*",
    b"_",
    b" ",
    b"  ",
    b"\t",
    b"\r",
    b"x",
    b"(1/5)",
    b"\xe9",
    b"\xff\xfe",
]
subjects = st.lists(st.sampled_from(FRAGMENTS), max_size=8).map(b"".join)


def _kernel(subs: list[bytes]) -> list[tuple[bytes, int]]:
    buf = b"".join(subs)
    ends = np.cumsum([len(s) for s in subs], dtype=np.int64)
    starts = ends - np.array([len(s) for s in subs], dtype=np.int64)
    out = decode_encoded_words(buf, starts, ends)
    return [
        (out.buf[a:z].tobytes(), int(t))
        for a, z, t in zip(out.start.tolist(), out.end.tolist(), out.status, strict=True)
    ]


@settings(max_examples=1000, deadline=None)
@given(st.lists(subjects, max_size=12))
def test_matches_reference(subs):
    assert _kernel(subs) == ref.decode_spans(subs)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40).map(lambda b: b"=?utf-8?q?" + b + b"?="), max_size=8))
def test_any_bytes_in_a_word_match_reference(subs):
    assert _kernel(subs) == ref.decode_spans(subs)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(CHARSET_NAMES)),
    st.sampled_from([b"B", b"q"]),
    st.binary(max_size=30),
)
def test_every_byte_of_every_known_charset(name, kind, raw):
    text = base64.b64encode(raw) if kind == b"B" else b"".join(b"=%02X" % c for c in raw)
    word = b"=?" + name.upper() + b"?" + kind + b"?" + text + b"?="
    assert _kernel([word]) == ref.decode_spans([word])


def test_known_names_are_the_codecs_python_finds():
    for name, charset in CHARSET_NAMES.items():
        assert codecs.lookup(name.decode()).name == codecs.lookup(CODEC_OF[charset]).name, name


def test_windows_1252_grows_three_times_within_the_output():
    word = b"=?cp1252?q?" + b"\x80" * 200 + b"?="
    got = _kernel([word, b"plain"])
    assert got == [(("€" * 200).encode(), DECODED), (b"plain", UNCHANGED)]
    assert MAX_GROWTH == 3


def test_statuses():
    subs = [b"plain", b"=?utf-8?q?x?=", b"=?koi8-r?q?x?= =?utf-8?q?y?=", b"=?utf-8?q?=FF?="]
    assert [t for _, t in _kernel(subs)] == [UNCHANGED, DECODED, FALLBACK, UNCHANGED]


def test_nothing_encoded_copies_nothing():
    buf = np.frombuffer(b"a (1/2)b =? c", np.uint8)
    start, end = np.array([0, 7], np.int64), np.array([7, 13], np.int64)
    out = decode_encoded_words(buf, start, end)
    assert out.candidates == 1 and out.status.tolist() == [UNCHANGED, UNCHANGED]
    plain = decode_encoded_words(buf, start[:1], end[:1])
    assert plain.buf is buf and plain.candidates == 0


def test_spans_are_validated():
    with pytest.raises(ValueError):
        decode_encoded_words(b"abc", np.array([0]), np.array([4]))


def test_matches_reference_on_a_generated_range():
    from pipelines.generate import generate_range_lines

    data, _first, _last = generate_range_lines(n_lines=20_000, seed=7)
    subs = [line.split(b"\t")[1] for line in data.split(b"\r\n") if line]
    got = _kernel(subs)
    assert got == ref.decode_spans(subs)
    assert sum(t == DECODED for _, t in got) > 100  # the range holds encoded subjects
