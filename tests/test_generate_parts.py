"""Pieces of the generator: archive and par2 naming, RFC 2047 words, dates, tokens."""

from __future__ import annotations

import email.utils
import random
import re
from email.header import decode_header, make_header

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.generate.dates import DATE_STYLES, DateFormatter
from pipelines.generate.files import par2_set, rar_new, rar_old, seven_zip, volume_sizes
from pipelines.generate.rand import HEX, Tokens, base36
from pipelines.generate.segments import yenc_sizes
from pipelines.generate.subjects import (
    STYLES,
    encoded_word_b,
    encoded_word_q,
    encoded_words_b,
    on_wire,
)


@given(st.integers(1, 10**10), st.integers(1, 10**9))
def test_volume_sizes_add_up(total: int, volume: int) -> None:
    sizes = volume_sizes(total, volume)
    assert sum(sizes) == total
    assert 2 <= len(sizes) <= 150 or total < 2
    assert all(s > 0 for s in sizes) and len(set(sizes[:-1])) <= 1


def test_archive_volume_names() -> None:
    assert [n for n, _ in rar_new("X", 50, 10)] == [f"X.part{i}.rar" for i in range(1, 6)]
    assert rar_new("X", 120, 10)[0][0] == "X.part01.rar"
    old = [n for n, _ in rar_old("x", 103 * 10, 10)]
    assert old[:3] == ["x.rar", "x.r00", "x.r01"] and old[100:103] == ["x.r99", "x.s00", "x.s01"]
    assert [n for n, _ in seven_zip("S", 30, 10)] == ["S.7z.001", "S.7z.002", "S.7z.003"]


def test_par2_set_doubles_its_blocks() -> None:
    files = par2_set(random.Random(1), "Name", 10**9)
    assert files[0][0] == "Name.par2"
    counts = []
    start = 0
    for name, _ in files[1:]:
        m = re.fullmatch(r"Name\.vol(\d+)\+(\d+)\.par2", name)
        assert m and int(m.group(1)) == start
        start += int(m.group(2))
        counts.append(int(m.group(2)))
    assert counts[: min(3, len(counts) - 1)] == [1, 2, 4][: min(3, len(counts) - 1)]


@given(st.text(min_size=1, max_size=200).filter(lambda t: t.strip() == t and "\r" not in t))
def test_encoded_words_decode_back(text: str) -> None:
    for encode in (encoded_word_b, encoded_word_q):
        words = encode(text)
        assert all(len(w) <= 75 for w in words.split(" "))
        assert str(make_header(decode_header(words))) == text


@given(st.text(max_size=120), st.lists(st.integers(1, 10**5), max_size=5), st.text(max_size=40))
def test_hidden_counter_words_match_one_by_one(head: str, ks: list[int], tail: str) -> None:
    assert encoded_words_b(head, ks, tail) == [encoded_word_b(f"{head}{k}{tail}") for k in ks]


def test_subjects_on_the_wire() -> None:
    assert on_wire("Taffe Mädels", "latin1").encode("latin-1") == "Taffe Mädels".encode("latin-1")
    assert on_wire("進撃の巨人", "utf8").encode("latin-1") == "進撃の巨人".encode()
    assert on_wire("plain", "latin1") == "plain"
    with pytest.raises(UnicodeEncodeError):
        on_wire("Der Schatz – Teil Zwei", "latin1")


def test_every_date_style_parses_back() -> None:
    fmt = DateFormatter()
    t = 1_550_000_000
    for style, (weekday, _, _, two_digit, _) in enumerate(DATE_STYLES):
        text = fmt.format(t, style)
        parsed = email.utils.parsedate_to_datetime(text)
        assert parsed.timestamp() == t, text
        assert (len(text.split()[-3]) == 2) == two_digit, text
        assert text[0].isalpha() == weekday, text


def test_templates_have_one_segment_counter() -> None:
    for style in STYLES:
        assert style.template.count("{k}/{K}") == 1
        assert ("{name}" in style.template) == style.has_name
        assert ("{i}" in style.template) == style.has_counter


def test_tokens_are_deterministic_and_from_the_alphabet() -> None:
    a = Tokens(np.random.default_rng(1)).many(HEX, 32, 100)
    b = Tokens(np.random.default_rng(1)).many(HEX, 32, 100)
    assert a == b and len(set(a)) == 100
    assert all(re.fullmatch(r"[0-9a-f]{32}", t) for t in a)
    assert base36(0) == "0" and base36(36) == "10" and int(base36(123456789), 36) == 123456789


def test_yenc_sizes() -> None:
    raw = np.array([716_800, 768_000, 1_000])
    nbytes, nlines = yenc_sizes(np.random.default_rng(0), raw, np.array([700, 700, 700]))
    assert np.all(nbytes > raw) and np.all(nbytes < raw * 1.06 + 1_200)
    body = nbytes - 700 - 190
    assert np.all(np.abs(body / (nlines - 3) - 130) < 2)
