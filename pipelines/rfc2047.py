"""RFC 2047 encoded-words in subjects, decoded before anything else reads a subject.

A poster writing outside ASCII sends `=?UTF-8?B?...?=`; undecoded, a base64 word can
hide the yEnc counter and the title reads as noise. kernels.encoded_words decodes the
words in UTF-8, ASCII, Latin-1 and Windows-1252 (nearly all of them); a line holding a
word in another charset (KOI8-R, Shift_JIS, ...) is decoded here in Python, on its own.
Bytes outside encoded words are kept as they are (raw Latin-1 stays raw: hashing works
on bytes, naming.to_text makes text of them).

`python -m pipelines.rfc2047 [lines]` measures decode_subjects on a generated range.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from kernels.bytes import as_buffer
from kernels.encoded_words import DECODED, FALLBACK, decode_encoded_words
from kernels.spans import gather_texts
from pipelines.subjects.encoded_words import ENCODED_WORD
from pipelines.subjects.encoded_words import decode_subject as _decode_in_python

__all__ = ["ENCODED_WORD", "decode_subject", "decode_subjects", "decode_texts"]


def _decode(
    buf: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(out, start, end, changed): every span's decoded bytes in out, the lines the kernel
    leaves to Python appended after its output."""
    got = decode_encoded_words(buf, start, end)
    changed = bool(np.any(got.status == DECODED))
    fallback = np.flatnonzero(got.status == FALLBACK)
    if len(fallback) == 0:
        return got.buf, got.start, got.end, changed
    view = got.buf.data
    out_start, out_end = got.start.copy(), got.end.copy()
    tail = bytearray()
    for i in fallback.tolist():
        raw = bytes(view[out_start[i] : out_end[i]])
        text = _decode_in_python(raw)
        if text != raw:
            out_start[i] = len(got.buf) + len(tail)
            tail += text
            out_end[i] = len(got.buf) + len(tail)
    if not tail:
        return got.buf, out_start, out_end, changed
    out = np.concatenate([got.buf, np.frombuffer(bytes(tail), dtype=np.uint8)])
    return out, out_start, out_end, True


def decode_subject(subject: bytes) -> bytes:
    """The subject with its encoded words decoded to UTF-8 (others left as sent)."""
    if b"=?" not in subject:
        return subject
    return decode_texts(subject, np.array([0]), np.array([len(subject)]))[0]


def decode_subjects(
    data: bytes | np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(buf, start, end): the subjects data[start[i]:end[i]] decoded, as buf[start[i]:end[i]].

    When no subject changes, the chunk's own buffer and the given arrays come back (no
    copy). Otherwise buf holds only the asked subjects, one after the other: a share of a
    chunk's lines costs a share of its bytes.
    """
    buf = as_buffer(data)
    out, out_start, out_end, changed = _decode(buf, start, end)
    if not changed:
        return buf, start, end
    return out, out_start, out_end


def decode_texts(data: bytes | np.ndarray, start: np.ndarray, end: np.ndarray) -> list[bytes]:
    """Each subject data[start[i]:end[i]] as decoded bytes."""
    out, out_start, out_end, _ = _decode(as_buffer(data), start, end)
    return gather_texts([(out, out_start, out_end)])[0]


def _bench(n_lines: int) -> None:
    """CPU of decode_subjects on the subjects of a generated range: every line, and the
    class representatives the header pass decodes."""
    from kernels.classes import subject_classes
    from pipelines.generate import generate_range_lines

    data, *_ = generate_range_lines(n_lines=n_lines, seed=1)
    buf = np.frombuffer(data, np.uint8)
    spans, pos = [], 0
    for line in data.split(b"\r\n"):
        tab = line.find(b"\t")
        if tab >= 0:  # the subject is the second field
            spans.append((pos + tab + 1, pos + line.index(b"\t", tab + 1)))
        pos += len(line) + 2
    start, end = (np.array(x, dtype=np.int64) for x in zip(*spans, strict=True))
    reps = subject_classes(buf, start, end).first
    decode_subjects(buf, start[:1000], end[:1000])  # compile before timing
    for label, s, e in (
        ("every line", start, end),
        ("class representatives", start[reps], end[reps]),
    ):
        best = float("inf")
        for _ in range(3):
            t = time.process_time()
            out, _, _ = decode_subjects(buf, s, e)
            best = min(best, time.process_time() - t)
        size = len(out) / 1e6
        print(f"{label}: {len(s):,} subjects, {best * 1000:.0f} CPU-ms, buf {size:.1f} MB")


if __name__ == "__main__":
    _bench(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
