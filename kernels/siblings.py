"""Sibling keys of a batch's runs: poster, file total and the subject before its file
counter, hashed to 64 bits (`tests.reference.siblings` says what and why).

Two kinds of run have one: NAMED runs (the identity came from the subject), whose
prefix must be at least 8 bytes, and NAMELESS runs (the subject held only the file part,
`[01/19] - "01 - Track.mp3"`), whose prefix may be empty: their counter is all that ties
an upload's files together. The caller says which a run is (and leaves out counters
that number a batch, not files).

A regex search per run cost more than placing the run; this is one pass over the
run's subject bytes. The hash stands for the reference's (poster, total, prefix)
triple; ASCII letters are folded as bytes.lower() folds them.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel, leaf_kernel
from kernels.bytes import digits_end, is_space, white_end
from kernels.hashing import _hash_span, _mix2

_SEED = np.uint64(0x51B1)

# what a run's sibling key is made from (`sibling_keys`' `kind`)
NONE = 0
NAMED = 1  # the subject named the release: a prefix of 8 bytes or more
NAMELESS = 2  # the subject held only the file part: any prefix, the empty one too


@leaf_kernel
def _ratio_at(buf, i, end):
    """Does `\\s*\\d+\\s*/\\s*\\d+` match at i?"""
    i = white_end(buf, i, end)
    j = digits_end(buf, i, end)
    if j == i:
        return False
    j = white_end(buf, j, end)
    if j >= end or buf[j] != 47:  # '/'
        return False
    j = white_end(buf, j + 1, end)
    return digits_end(buf, j, end) > j


@leaf_kernel
def _word_at(buf, i, end, lower_word):
    """Does the ASCII word (lower case) stand at i, in any case?"""
    n = lower_word.shape[0]
    if i + n > end:
        return False
    for k in range(n):
        c = buf[i + k]
        if 65 <= c <= 90:
            c += 32
        if c != lower_word[k]:
            return False
    return True


@leaf_kernel
def _file_of_at(buf, i, end, file_word, of_word):
    """Does `file\\s+\\d+\\s+of\\s+\\d+` match at i (any case)?"""
    if not _word_at(buf, i, end, file_word):
        return False
    j = i + 4
    k = white_end(buf, j, end)
    if k == j:
        return False
    j = digits_end(buf, k, end)
    if j == k:
        return False
    k = white_end(buf, j, end)
    if k == j or not _word_at(buf, k, end, of_word):
        return False
    j = k + 2
    k = white_end(buf, j, end)
    if k == j:
        return False
    return digits_end(buf, k, end) > k


@leaf_kernel
def _counter_start(buf, start, end, file_word, of_word):
    """Where the first file counter of buf[start:end] starts, or -1 (the reference's
    regex: an optional `[` or `(`, then i/N; or File i of N)."""
    for i in range(start, end):
        c = buf[i]
        # a counter starts with a digit, white space, a bracket or an f: skip the rest fast
        if not (48 <= c <= 57 or is_space(c) or c == 91 or c == 40 or c == 102 or c == 70):
            continue
        if (c == 91 or c == 40) and _ratio_at(buf, i + 1, end):
            return i
        if _ratio_at(buf, i, end) or _file_of_at(buf, i, end, file_word, of_word):
            return i
    return -1


@leaf_kernel
def _prefix_end(buf, start, end, file_word, of_word, least):
    """Where the prefix before the first counter ends (separators stripped), or -1 when
    there is no counter or fewer than `least` bytes before it."""
    m = _counter_start(buf, start, end, file_word, of_word)
    if m < 0 or m - start < least:
        return -1
    while m > start:
        c = buf[m - 1]
        if c == 32 or c == 45 or c == 95 or c == 91 or c == 40:  # " -_[("
            m -= 1
        else:
            break
    return m


@kernel
def _sibling_keys(buf, starts, ends, poster_key, file_index, file_total, kind,
                  file_word, of_word, prefix, hashes, has):  # fmt: skip
    scratch = np.empty(0, np.uint8)
    for r in range(starts.shape[0]):
        has[r] = False
        prefix[r] = -1
        k = kind[r]
        # a named file's [00/N] has none (as ever: its identity ties it); a nameless
        # upload's [00/N] .nzb or .nfo has only its counter to go by
        lowest = 1 if k == NAMED else 0
        if k == NONE or file_total[r] < 2 or file_index[r] < lowest:
            continue
        s = starts[r]
        e = _prefix_end(buf, s, ends[r], file_word, of_word, 8 if k == NAMED else 0)
        if e < 0:
            continue
        n = e - s
        if scratch.shape[0] < n:
            scratch = np.empty(2 * n, np.uint8)
        for k in range(n):
            c = buf[s + k]
            scratch[k] = c + 32 if 65 <= c <= 90 else c
        h = _hash_span(scratch, 0, n, _SEED)
        h = _mix2(_mix2(poster_key[r], np.uint64(file_total[r])), h)
        prefix[r] = e - s
        hashes[r] = h
        has[r] = True


def key_hash(poster_key: int, file_total: int, prefix: bytes) -> np.uint64:
    """The kernel's hash of a (poster, total, lower-cased prefix) sibling key, from
    Python: the reference's triples (and version 1 snapshots) as the kernel keys them."""
    data = np.frombuffer(prefix, np.uint8) if prefix else np.zeros(0, np.uint8)
    # numba hands uint64 results back as Python ints: each made uint64 again (a large
    # one would not convert, a small one would be typed int64 and mix differently)
    h = np.uint64(_hash_span(data, 0, len(data), _SEED))
    head = np.uint64(_mix2(np.uint64(poster_key), np.uint64(file_total)))
    return np.uint64(_mix2(head, h))


_FILE = np.frombuffer(b"file", np.uint8)
_OF = np.frombuffer(b"of", np.uint8)


def sibling_keys(
    subjects: list[bytes],
    poster_key: np.ndarray,
    file_index: np.ndarray,
    file_total: np.ndarray,
    kind: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run: its sibling hash, whether it has one, and its prefix length (-1: none).
    `kind` says per run what its key is made from: NONE, NAMED or NAMELESS."""
    runs = len(subjects)
    lengths = np.fromiter(map(len, subjects), np.int64, runs)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    buf = np.frombuffer(b"".join(subjects), np.uint8) if runs else np.zeros(0, np.uint8)
    hashes = np.zeros(runs, np.uint64)
    has = np.zeros(runs, np.bool_)
    prefix = np.full(runs, -1, np.int64)
    _sibling_keys(
        buf, starts, ends,
        np.ascontiguousarray(poster_key, np.uint64),
        np.ascontiguousarray(file_index, np.int64),
        np.ascontiguousarray(file_total, np.int64),
        np.ascontiguousarray(kind, np.uint8),
        _FILE, _OF, prefix, hashes, has,
    )  # fmt: skip
    return hashes, has, prefix
