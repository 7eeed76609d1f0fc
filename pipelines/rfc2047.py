"""RFC 2047 encoded-words in subjects, decoded before anything else reads a subject.

A poster writing outside ASCII sends `=?UTF-8?B?...?=`; undecoded, a base64 word can
hide the yEnc counter and the title reads as noise. A kernel flags the few subjects that
hold `=?...?=`; only those are decoded here, in Python. The decoded subjects' UTF-8 bytes
are appended after the chunk's bytes and their spans moved there, so every later kernel
reads one buffer. Bytes outside encoded words are kept as they are (raw Latin-1 stays
raw: hashing works on bytes, naming.to_text makes text of them).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re

import numpy as np

from kernels.subject import flag_encoded_words

# charset, encoding and text of one encoded word; RFC 2231 allows `charset*language`
ENCODED_WORD = re.compile(rb"=\?([^?\s*]+)(?:\*[^?\s]*)?\?([BbQq])\?([^?\s]*)\?=")
# RFC 2047 6.2: white space between two adjacent encoded words is not shown
_BETWEEN_WORDS = re.compile(rb"[ \t]+")
_Q_HEX = re.compile(rb"=([0-9A-Fa-f]{2})")


def _decode_word(match: re.Match[bytes]) -> bytes:
    return _decode_parts(match.group(0), match.group(1), match.group(2), match.group(3))


# One upload repeats the same encoded words in every segment's subject: decode each once.
@functools.lru_cache(maxsize=1 << 16)
def _decode_parts(word: bytes, charset: bytes, kind: bytes, text: bytes) -> bytes:
    try:
        codec = codecs.lookup(charset.decode("ascii"))
        if kind in b"Bb":
            raw = base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
        else:
            raw = _Q_HEX.sub(lambda m: bytes([int(m.group(1), 16)]), text.replace(b"_", b" "))
        return raw.decode(codec.name).encode("utf-8")
    except (LookupError, UnicodeError, ValueError, binascii.Error):
        return word  # not decodable: left as it was sent


def decode_subject(subject: bytes) -> bytes:
    """The subject with its encoded words decoded to UTF-8 (others left as sent)."""
    if b"=?" not in subject:
        return subject
    words = list(ENCODED_WORD.finditer(subject))
    if not words:
        return subject
    # drop the white space between encoded words only where both sides decode
    out = bytearray()
    pos = 0
    prev_decoded = False
    for m in words:
        gap = subject[pos : m.start()]
        decoded = _decode_word(m)
        ok = decoded != m.group(0)
        if ok and prev_decoded and _BETWEEN_WORDS.fullmatch(gap):
            gap = b""
        out += gap + decoded
        prev_decoded = ok
        pos = m.end()
    out += subject[pos:]
    return bytes(out)


def decode_subjects(
    data: bytes | np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(buf, start, end) with encoded subjects decoded.

    When no subject changes, the chunk's own buffer and the given arrays come back
    (no copy). Otherwise buf is the chunk's bytes followed by the decoded subjects, and
    only the changed subjects' spans point into the appended part.
    """
    buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    flagged = np.flatnonzero(flag_encoded_words(buf, start, end))
    if len(flagged) == 0:
        return buf, start, end
    tail = bytearray()
    moved: list[tuple[int, int, int]] = []
    for i in flagged.tolist():
        subject = buf[start[i] : end[i]].tobytes()
        decoded = decode_subject(subject)
        if decoded != subject:
            moved.append((i, len(tail), len(decoded)))
            tail += decoded
    if not moved:
        return buf, start, end
    new_buf = np.concatenate([buf, np.frombuffer(bytes(tail), dtype=np.uint8)])
    new_start = np.array(start, dtype=np.int64, copy=True)
    new_end = np.array(end, dtype=np.int64, copy=True)
    base = len(buf)
    for i, offset, length in moved:
        new_start[i] = base + offset
        new_end[i] = base + offset + length
    return new_buf, new_start, new_end


def decode_texts(data: bytes | np.ndarray, start: np.ndarray, end: np.ndarray) -> list[bytes]:
    """Each subject data[start[i]:end[i]] as decoded bytes: for a few lines (one a file
    run), without the copy of the whole chunk that decode_subjects makes."""
    arr = np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data
    view = arr.data
    flagged = set(np.flatnonzero(flag_encoded_words(arr, start, end)).tolist())
    spans = zip(start.tolist(), end.tolist(), strict=True)
    return [
        decode_subject(bytes(view[a:z])) if i in flagged else bytes(view[a:z])
        for i, (a, z) in enumerate(spans)
    ]
