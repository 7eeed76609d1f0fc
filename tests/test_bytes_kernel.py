"""The shared byte primitives (kernels.bytes) against what plain Python says of the bytes."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import bytes as kb

# bytes that exercise the primitives: digits, letters, spaces, controls, UTF-8 leads
_TEXT = st.binary(max_size=40) | st.text(max_size=20).map(lambda t: t.encode("utf-8"))
_PIECES = st.lists(st.sampled_from([b"0", b"7", b"a", b"Z", b" ", b"\t", b"\x80", b"\xc3"]))


def _arr(b: bytes) -> np.ndarray:
    return np.frombuffer(b, np.uint8)


def test_byte_classes_over_every_byte():
    for c in range(256):
        ch = bytes([c])
        assert kb.is_digit(c) == ch.isdigit()
        assert kb.is_alnum(c) == ch.isalnum()
        assert kb.is_word(c) == (ch.isalnum() or ch == b"_" or c >= 128)
        assert kb.is_hex(c) == (ch in b"0123456789abcdefABCDEF")
        assert kb.is_vowel(c) == (ch in b"aeiouyAEIOUY")
        assert kb.is_space(c) == bool(re.fullmatch(rb"\s", ch))
        assert kb.lower(c) == ch.lower()[0]


@settings(max_examples=300, deadline=None)
@given(_TEXT | _PIECES.map(b"".join), st.data())
def test_runs_and_numbers(text, data):
    buf = _arr(text)
    n = len(text)
    i = data.draw(st.integers(0, n))
    digits = re.match(rb"[0-9]*", text[i:]).end()
    assert kb.digits_end(buf, i, n) == i + digits
    assert kb.letters_end(buf, i, n) == i + re.match(rb"[A-Za-z]*", text[i:]).end()
    assert kb.spaces_end(buf, i, n) == i + re.match(rb" *", text[i:]).end()
    assert kb.white_end(buf, i, n) == i + re.match(rb"\s*", text[i:]).end()
    if digits:
        assert kb.digits_value(buf, i, i + digits) == int(text[i : i + digits])
    back = len(text[:i]) - len(text[:i].rstrip(b"0123456789"))
    limit = data.draw(st.integers(0, 5))
    assert kb.digits_back(buf, 0, i, limit) == i - min(back, limit + 1)
    z = data.draw(st.integers(i, n))
    piece = text[i:z]
    expected = int(piece) if re.fullmatch(rb"[0-9]{1,18}", piece) else -1
    assert kb.uint_value(buf, i, z) == expected


def test_uint_value_limits():
    buf = _arr(b"999999999999999999 1234567890123456789")
    assert kb.uint_value(buf, 0, 18) == 999_999_999_999_999_999
    assert kb.uint_value(buf, 19, 38) == -1  # 19 digits: not taken for an int64
    assert kb.uint_value(buf, 3, 3) == -1


@settings(max_examples=500, deadline=None)
@given(_TEXT | _PIECES.map(b"".join))
def test_utf8_as_python_decodes(text):
    buf = _arr(text)
    try:
        text.decode("utf-8", "strict")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert kb.utf8_valid(buf, 0, len(text)) == valid
    i = 0
    while i < len(text):
        n = kb.utf8_length(buf, i, len(text))
        for k in range(1, 5):  # the longest prefix at i that is one character
            try:
                one = len(text[i : i + k].decode("utf-8", "strict")) == 1
            except UnicodeDecodeError:
                continue
            if one:
                assert n == k
                break
        else:
            assert n == 0
        i += max(n, 1)


def _flags(word: int, test) -> int:
    return sum(0x80 << (8 * k) for k in range(8) if test((word >> (8 * k)) & 0xFF))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 9, 10, 11, 32, 58, 0x7F, 0x80, 0xFF]) | st.integers(0, 255),
             min_size=8, max_size=8),
    st.integers(1, 0x80),
)  # fmt: skip
def test_word_tests_flag_exactly_their_bytes(values, n):
    word = int.from_bytes(bytes(values), "little")
    w = np.uint64(word)
    zeros = _flags(word, lambda b: b == 0)
    assert int(kb.zero_bytes(w)) & int(kb.HI) == zeros
    below = _flags(word, lambda b: b < n)
    assert int(kb.bytes_below(w, kb.repeated(0x80 - n))) == below
    flagged = [k for k in range(8) if below >> (8 * k + 7) & 1]
    assert int(kb.flag_bits(np.uint64(below))) == sum(1 << k for k in flagged)
    if below:
        assert int(kb.first_flagged(np.uint64(below))) == flagged[0]
        assert int(kb.last_flagged(np.uint64(below))) == flagged[-1]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40), st.data())
def test_word_copies_and_compares(data_bytes, data):
    buf = _arr(data_bytes)
    n = len(data_bytes)
    a = data.draw(st.integers(0, n))
    z = data.draw(st.integers(a, n))
    out = np.zeros(n + 8, np.uint8)
    assert kb.copy_words(buf, a, z, out, 3) == 3 + z - a
    assert out[3 : 3 + z - a].tobytes() == data_bytes[a:z]
    b = data.draw(st.integers(0, n))
    k = data.draw(st.integers(0, n - max(a, b)))
    assert kb.same_bytes(buf, a, b, k) == (data_bytes[a : a + k] == data_bytes[b : b + k])
