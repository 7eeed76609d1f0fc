"""RFC 2047 encoded words (`=?charset?B|Q?text?=`) in subjects, decoded to UTF-8.

Each span's bytes go to one output buffer, decoded where its words are in a charset
this kernel knows (UTF-8, US-ASCII, ISO-8859-1, Windows-1252: nearly every encoded
subject in the feeds), copied as they are otherwise. The rules are those of
`pipelines.subjects.encoded_words.decode_subject` (Python's base64 and codecs): a word
that does not decode is left as sent, and the white space between two decoded words is
dropped. A span holding a word in another charset is copied raw and marked FALLBACK:
the caller decodes that line in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels._jit import leaf_kernel
from kernels.bytes import (
    U,
    checked_spans,
    copy_words,
    is_space,
    lower,
    prefetch_ahead,
    utf8_valid,
)

# status of a span
UNCHANGED = 0  # its output bytes are its input bytes
DECODED = 1  # at least one word decoded: the output differs from the input
FALLBACK = 2  # a word in a charset the kernel does not know: output is the raw span

# charsets: UTF-8 is checked and passed through, the others are read through a table
UTF8, ASCII, LATIN1, CP1252 = 0, 1, 2, 3
# the names the kernel knows, ASCII case folded; each is checked against codecs.lookup
CHARSET_NAMES: dict[bytes, int] = {
    b"utf-8": UTF8,
    b"utf8": UTF8,
    b"us-ascii": ASCII,
    b"ascii": ASCII,
    b"iso-8859-1": LATIN1,
    b"iso8859-1": LATIN1,
    b"latin1": LATIN1,
    b"latin-1": LATIN1,
    b"windows-1252": CP1252,
    b"cp1252": CP1252,
}
CODEC_OF = {UTF8: "utf-8", ASCII: "ascii", LATIN1: "iso8859-1", CP1252: "cp1252"}

_NAMES = np.frombuffer(b"".join(CHARSET_NAMES), dtype=np.uint8)
_NAME_START = np.cumsum([0, *(len(n) for n in CHARSET_NAMES)], dtype=np.int64)
_NAME_CHARSET = np.array(list(CHARSET_NAMES.values()), dtype=np.int64)


def _to_utf8_table() -> np.ndarray:
    """Per single-byte charset and byte: [length, UTF-8 bytes...]; length 0 where the
    codec has no character (ASCII above 0x7f, Windows-1252's five holes)."""
    table = np.zeros((len(CODEC_OF), 256, 4), dtype=np.uint8)
    for charset, codec in CODEC_OF.items():
        if charset == UTF8:
            continue
        for b in range(256):
            try:
                utf8 = bytes([b]).decode(codec).encode("utf-8")
            except UnicodeDecodeError:
                continue
            table[charset, b, 0] = len(utf8)
            table[charset, b, 1 : 1 + len(utf8)] = list(utf8)
    return table


_TO_UTF8 = _to_utf8_table()
# longest UTF-8 text of one byte (Windows-1252's 0x80 is U+20AC, 3 bytes): the output bound
MAX_GROWTH = int(_TO_UTF8[:, :, 0].max())

_B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64 = np.full(256, 255, dtype=np.uint8)
_B64[np.frombuffer(_B64_ALPHABET, np.uint8)] = np.arange(64, dtype=np.uint8)
_HEX = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEX[_c] = _i
    _HEX[bytes([_c]).upper()[0]] = _i


@leaf_kernel
def _charset(buf, a, z):
    """The known charset buf[a:z] names (ASCII case folded), -1 for any other."""
    n = z - a
    for k in range(_NAME_CHARSET.shape[0]):
        s = _NAME_START[k]
        if _NAME_START[k + 1] - s != n:
            continue
        same = True
        for j in range(n):
            if lower(buf[U(a + j)]) != _NAMES[U(s + j)]:
                same = False
                break
        if same:
            return _NAME_CHARSET[k]
    return -1


@leaf_kernel
def _parse_word(buf, p, e):
    """(charset end, kind, text start, text end, word end) of the word at buf[p] == `=?`,
    word end -1 when none starts there. The pattern has one way to match, so stopping at
    the first byte that breaks it is what the regex's backtracking would find."""
    i = p + 2
    while i < e and buf[U(i)] != 63 and buf[U(i)] != 42 and not is_space(buf[U(i)]):
        i += 1
    cs_end = i
    if cs_end == p + 2:
        return 0, 0, 0, 0, -1
    if i < e and buf[U(i)] == 42:  # RFC 2231 `charset*language`
        i += 1
        while i < e and buf[U(i)] != 63 and not is_space(buf[U(i)]):
            i += 1
    if i + 2 >= e or buf[U(i)] != 63 or buf[U(i + 2)] != 63:
        return 0, 0, 0, 0, -1
    kind = buf[U(i + 1)] | 32  # B or Q, either case
    if kind != 98 and kind != 113:
        return 0, 0, 0, 0, -1
    t0 = i + 3
    i = t0
    while i < e and buf[U(i)] != 63 and not is_space(buf[U(i)]):
        i += 1
    if i + 1 >= e or buf[U(i)] != 63 or buf[U(i + 1)] != 61:
        return 0, 0, 0, 0, -1
    return cs_end, kind, t0, i, i + 2


@leaf_kernel
def _emit(charset, b, out, o):
    """Write the UTF-8 of byte b in charset at out[o]; the new end, -1 if b has no character."""
    if charset == UTF8:
        out[U(o)] = b
        return o + 1
    n = int(_TO_UTF8[charset, b, 0])
    if n == 0:
        return -1
    for k in range(n):
        out[U(o + k)] = _TO_UTF8[charset, b, k + 1]
    return o + n


@leaf_kernel
def _decode_b(buf, t0, t1, charset, out, o):
    # What Python 3.11's strict base64 accepts once the text is padded to a multiple of 4:
    # data then `=`s only; 4k data with any `=`, 4k+2 with at most 2, 4k+3 with at most 1.
    n = t0
    while n < t1 and _B64[buf[U(n)]] != 255:
        n += 1
    for j in range(n, t1):
        if buf[U(j)] != 61:
            return -1
    data = n - t0
    pads = t1 - n
    r = data % 4
    if r == 1 or (data == 0 and pads > 0) or (r == 2 and pads > 2) or (r == 3 and pads > 1):
        return -1
    acc = 0
    bits = 0
    for j in range(t0, n):
        acc = ((acc << 6) | _B64[buf[U(j)]]) & 0xFFFFFF
        bits += 6
        if bits >= 8:
            bits -= 8
            o = _emit(charset, (acc >> bits) & 0xFF, out, o)
            if o < 0:
                return -1
    return o  # the left-over bits of a short last group are dropped, as Python does


@leaf_kernel
def _decode_q(buf, t0, t1, charset, out, o):
    j = t0
    while j < t1:
        c = buf[U(j)]
        if c == 95:  # `_` is a space
            c = 32
        elif c == 61 and j + 2 < t1 and _HEX[buf[U(j + 1)]] < 16 and _HEX[buf[U(j + 2)]] < 16:
            c = _HEX[buf[U(j + 1)]] * 16 + _HEX[buf[U(j + 2)]]
            j += 2
        j += 1  # any other byte, a lone `=` included, stands for itself
        o = _emit(charset, c, out, o)
        if o < 0:
            return -1
    return o


@leaf_kernel
def _copy(buf, a, z, out, o):
    for k in range(z - a):
        out[U(o + k)] = buf[U(a + k)]
    return o + z - a


@leaf_kernel
def _blank(buf, a, z):
    """Whether buf[a:z] is one or more spaces and tabs (RFC 2047 6.2's gap)."""
    if a == z:
        return False
    for k in range(a, z):  # noqa: SIM110 - numba compiles no all() over a generator
        if buf[U(k)] != 32 and buf[U(k)] != 9:
            return False
    return True


@leaf_kernel
def _decode_word(buf, cs0, cs1, kind, t0, t1, out, o):
    """out's new end with the word's text decoded at out[o], -1 when it does not decode,
    -2 when its charset is not one the kernel knows."""
    charset = _charset(buf, cs0, cs1)
    if charset < 0:
        return -2
    if kind == 98:
        w = _decode_b(buf, t0, t1, charset, out, o)
    else:
        w = _decode_q(buf, t0, t1, charset, out, o)
    if w >= 0 and charset == UTF8 and not utf8_valid(out, o, w):
        return -1
    return w


@leaf_kernel
def _next_word(buf, p, e):
    """Where the first `=?` at or after p starts, -1 if none. Both bytes are only looked
    at together at a `?`: one compare a byte."""
    for q in range(p + 1, e):
        if buf[U(q)] == 63 and buf[U(q - 1)] == 61:
            return q - 1
    return -1


@leaf_kernel
def _decode_span(buf, s, e, p, out, o):
    """(out's new end, status) of buf[s:e] written at out[o]; its first `=?` is at p."""
    o_span = o
    last = s  # input before `last` is written
    prev_ok = False
    any_ok = False
    while p >= 0:
        cs1, kind, t0, t1, w_end = _parse_word(buf, p, e)
        if w_end < 0:
            p = _next_word(buf, p + 1, e)
            continue
        gap = o
        o = _copy(buf, last, p, out, o)
        w = _decode_word(buf, p + 2, cs1, kind, t0, t1, out, o)
        if w == -2:
            return _copy(buf, s, e, out, o_span), FALLBACK
        # The reference counts a word that decodes to its own bytes as not decoded. In
        # these charsets none can: its ASCII comes from the text's ASCII alone, which is
        # shorter than the word. So a decoded word also always changes its span.
        ok = w >= 0
        if not ok:
            o = _copy(buf, p, w_end, out, o)
        elif prev_ok and _blank(buf, last, p):  # drop the gap: move the word onto it
            for k in range(w - o):
                out[U(gap + k)] = out[U(o + k)]
            o = gap + w - o
        else:
            o = w
        any_ok = any_ok or ok
        prev_ok = ok
        last = w_end
        p = _next_word(buf, w_end, e)
    o = _copy(buf, last, e, out, o)
    return o, DECODED if any_ok else UNCHANGED


@leaf_kernel
def _decode_spans(buf, start, end, out, out_start, out_end, status):
    """Write every span at the end of out; the bytes written and how many spans hold `=?`."""
    o = 0
    candidates = 0
    n = start.shape[0]
    for li in range(n):
        prefetch_ahead(buf, start, end, li)
        s = start[li]
        e = end[li]
        out_start[li] = o
        p = _next_word(buf, s, e)
        if p < 0:
            o = copy_words(buf, s, e, out, o)
        else:
            candidates += 1
            o, status[li] = _decode_span(buf, s, e, p, out, o)
        out_end[li] = o
    return o, candidates


@dataclass(frozen=True)
class DecodedSpans:
    """Every span's bytes in one buffer, decoded where the kernel could."""

    buf: np.ndarray  # uint8
    start: np.ndarray  # int64 per span, into buf
    end: np.ndarray  # int64
    status: np.ndarray  # uint8: UNCHANGED, DECODED or FALLBACK
    candidates: int  # spans holding `=?`; 0 means every span is UNCHANGED


def decode_encoded_words(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray
) -> DecodedSpans:
    """buf[start[i]:end[i]] for each i with its encoded words decoded to UTF-8.

    When no span holds `=?`, the input buffer and spans come back.
    """
    arr, start, end = checked_spans(buf, start, end)
    status = np.zeros(len(start), np.uint8)
    # a decoded word takes at most MAX_GROWTH bytes an input byte; pages of out that are
    # never written are never mapped, so the bound costs address space, not memory
    out = np.empty(int((end - start).sum()) * MAX_GROWTH, np.uint8)
    out_start = np.empty(len(start), np.int64)
    out_end = np.empty(len(start), np.int64)
    used, candidates = _decode_spans(arr, start, end, out, out_start, out_end, status)
    if candidates == 0:  # the input as it was: no copy kept
        return DecodedSpans(arr, start, end, status, 0)
    return DecodedSpans(out[:used], out_start, out_end, status, candidates)
