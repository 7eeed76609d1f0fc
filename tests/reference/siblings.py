"""Plain-Python reference of `kernels.siblings`: a file's sibling key, by regex.

Files of one upload whose unquoted names leaked into the release identity still share
the poster, the file total and the subject before the file counter: that triple is
the sibling key, which lets such files find their release. Files whose subject held
only the file part (`[01/19] - "01 - Track.mp3"`: each file's stem its identity) share
it too, with a prefix that may be empty: the counter is all that ties their upload.
"""

from __future__ import annotations

import re

from kernels.siblings import NAMED, NONE

# the file counter of a subject: [i/N], (i/N), i/N, File i of N
FILE_COUNTER = re.compile(rb"[\[(]?\s*\d+\s*/\s*\d+\s*[\])]?|file\s+\d+\s+of\s+\d+", re.I)


def prefix_end(subject: bytes, least: int = 8) -> int:
    """Where the subject's sibling prefix ends (before its first file counter and the
    separators before that), or -1 when it has none (no counter, or one in its first
    `least` bytes: for a named file, too little before it to tell uploads apart)."""
    m = FILE_COUNTER.search(subject)
    if m is None or m.start() < least:
        return -1
    return len(subject[: m.start()].rstrip(b" -_[("))


def sibling_key(
    subject: bytes, file_index: int, file_total: int, poster_key: int, kind: int
) -> tuple[int, int, bytes] | None:
    """(poster, file total, the subject before its file counter), for files of a counter
    i/N (N >= 2): named ones (kind NAMED) from file 1 on, nameless ones from file 0."""
    if kind == NONE or file_total < 2 or file_index < (1 if kind == NAMED else 0):
        return None
    end = prefix_end(subject, 8 if kind == NAMED else 0)
    if end < 0:
        return None
    return poster_key, file_total, subject[:end].lower()
