"""Plain-Python reference of kernels.encoded_words: a regex, base64 and codecs.

`decode_subject` decodes words in every charset Python has; it is also the fallback the
pipeline runs for the lines the kernel leaves to Python.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re

from kernels.encoded_words import CHARSET_NAMES, DECODED, FALLBACK, UNCHANGED

# charset, encoding and text of one encoded word; RFC 2231 allows `charset*language`
ENCODED_WORD = re.compile(rb"=\?([^?\s*]+)(?:\*[^?\s]*)?\?([BbQq])\?([^?\s]*)\?=")
# RFC 2047 6.2: white space between two adjacent encoded words is not shown
_BETWEEN_WORDS = re.compile(rb"[ \t]+")
_Q_HEX = re.compile(rb"=([0-9A-Fa-f]{2})")


# One upload repeats the same encoded words in every segment's subject: decode each once.
@functools.lru_cache(maxsize=1 << 12)
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
    out = bytearray()
    pos = 0
    prev_decoded = False
    for m in ENCODED_WORD.finditer(subject):
        gap = subject[pos : m.start()]
        decoded = _decode_parts(m.group(0), m.group(1), m.group(2), m.group(3))
        ok = decoded != m.group(0)
        # drop the white space between encoded words only where both sides decode
        if ok and prev_decoded and _BETWEEN_WORDS.fullmatch(gap):
            gap = b""
        out += gap + decoded
        prev_decoded = ok
        pos = m.end()
    out += subject[pos:]
    return bytes(out)


def decode_spans(subjects: list[bytes]) -> list[tuple[bytes, int]]:
    """What kernels.encoded_words gives each subject: (bytes, status)."""
    out = []
    for s in subjects:
        if any(m.group(1).lower() not in CHARSET_NAMES for m in ENCODED_WORD.finditer(s)):
            out.append((s, FALLBACK))
            continue
        decoded = decode_subject(s)
        out.append((decoded, UNCHANGED if decoded == s else DECODED))
    return out
