"""kernels.xref_numbers against the regex it replaces: generated Xref-like texts and
adversarial ones (numbers not at a token's end, colons in a row, every blank, the end)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.xref_numbers import strip_article_numbers
from tests.reference.xref_numbers import strip_article_numbers as reference

# the bytes the rule turns on, and a few others
_ALPHABET = b": \t\n\r\x0b\x0c0123456789ab.-\x00\xff"


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(list(_ALPHABET)), max_size=40).map(bytes))
def test_matches_the_regex(text):
    assert strip_article_numbers(text) == reference(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=30), max_size=8))
def test_matches_the_regex_on_fields_joined(fields):
    text = b"\n".join(b"Xref: host " + f for f in fields)
    assert strip_article_numbers(text) == reference(text)


def test_adversarial_texts():
    cases = [
        b"",
        b":",
        b":1",
        b"a:1",
        b"a:1\n",
        b"a:1:2 b:3",
        b"a::12 b:12x c:1 2 d:0",
        b"Xref: news.host alt.binaries.x:123 alt.binaries.y:45\nXref: h a.b:9",
        b"a:12\x0b:34\x0c:5\r:6\t:7\n:8 ",
        b"a:\xff12 b:12\xff",
        b":" * 10 + b"123",
    ]
    for text in cases:
        assert strip_article_numbers(text) == reference(text), text
    assert strip_article_numbers(b"g.a:12 g.b:3") == b"g.a: g.b:"
