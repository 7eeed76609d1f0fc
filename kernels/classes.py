"""Subject classes: the lines of one file differ only in their part counter's numbers.

An upload of 50 parts posts 50 subjects that are byte for byte the same apart from the
`k` (and, rarely, the `K`) of the last `(k/K)`. Parsing one subject per class and
handing its fields to every member spares the subject parser (and the RFC 2047 decoder)
all but one line of each file in a chunk.

The class key hashes the subject without its last strict `(k/K)`; the line's own k and
K are read here. A line whose counter is not after every `?=` (an encoded word could
decode to another counter after it) has no shared counter: its key hashes the whole
subject, so only identical subjects share its class, and its part comes from the parse.
The two kinds hash with different seeds, so they never share a key by construction.

A per-article random subject (one hex or base64 token, `[PRiVATE]` before it at most)
with no `/`, `(` or `=?` can hold no counter of any kind and decodes to itself: the
parser would only judge it random, so it is judged here, joins no class (`cls` RANDOM)
and is never parsed. About a quarter of a binary group's lines are such noise.

So is a line with no strict `(k/K)` and no `?=` anywhere that is not a random token and
cannot be a whole-file single segment: the parser would find no part counter in it, and
the header pass takes a line without one only as a yEnc file's single segment, which
needs yEnc in the subject and a file name (a quoted text, or a token with an extension:
either wants a `"` or a `.`). So the line is dropped for having no part counter whatever
else the parser would read (`cls` NO_COUNTER). Text posts, and per-article hash subjects
such as `[PRiVATE] <32 hex digits> yEnc` (64 k of the bench range's 2 M lines), are such
lines; each is its own class, so parsing them cost a decode and a parse a line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels._jit import kernel, leaf_kernel
from kernels.bytes import AHEAD, U, checked_spans, prefetch
from kernels.hashing import _hash_span
from kernels.names import _random_subject
from kernels.subject import _strict_counter

SEED_SHARED = np.uint64(0x5EC7_C1A5_5E5C_0001)
SEED_WHOLE = np.uint64(0x5EC7_C1A5_5E5C_0002)
# the `cls` of a line judged here, without a class: a random subject, or no part counter
RANDOM = -1
NO_COUNTER = -2
# The first table of class keys: 2**15 slots (512 kB with the keys, in L2). A chunk's
# ~70 k lines hold 2-10 k classes; a table sized for every line being its own (2**18
# slots, 4 MB) cost ~6 % more of the kernel in cache misses and in filling it.
FIRST_TABLE_BITS = 15


@dataclass(frozen=True)
class SubjectClasses:
    """Per line: its class and its own counter; per class: the line that represents it."""

    # int64 class of each line, numbered in order of first appearance; RANDOM, NO_COUNTER
    cls: np.ndarray
    key: np.ndarray  # uint64 class key of each line
    part: np.ndarray  # int32 k of the shared counter, -1 when the key is the whole subject
    part_total: np.ndarray  # int32 K of the shared counter, -1 likewise
    tail: np.ndarray  # int64 bytes from the counter's `(` to the subject's end, -1 if none
    counter_len: np.ndarray  # int64 length of the counter, 0 if none
    first: np.ndarray  # int64 per class: the first line of it

    def __len__(self) -> int:
        return len(self.cls)

    @property
    def classes(self) -> int:
        return len(self.first)


@kernel
def _classes(
    buf, start, end, key, part, part_total, tail, counter_len, cls, first, table, table_key
):
    mask = np.uint64(table.shape[0] - 1)
    n_classes = 0
    n = start.shape[0]
    for li in range(n):
        if li + AHEAD < n:
            # the subjects lie ~300 bytes apart in a chunk far larger than the caches:
            # fetch the one some lines ahead (its end first: the scan starts there), and
            # its middle, which the key's hash reads (a subject spans ~3 cache lines)
            ahead_end = end[li + AHEAD]
            prefetch(buf, ahead_end - 1)
            for a in range(start[li + AHEAD], ahead_end - 1, 64):
                prefetch(buf, a)
        s = start[li]
        e = end[li]
        # one scan from the end: the last strict (k/K), unless a `?=` comes first
        ps = -1
        pe = -1
        v1 = 0
        v2 = 0
        shared = False
        encoded = False
        for j in range(e - 1, s - 1, -1):
            c = buf[U(j)]
            if c == 61 and j > s and buf[U(j - 1)] == 63:
                encoded = True
                break
            if c == 40:
                ce, a, b = _strict_counter(buf, j, e)
                if ce >= 0:
                    ps = j
                    pe = ce
                    v1 = a
                    v2 = b
                    shared = True
                    break
        if not shared and not encoded:
            # no strict counter anywhere and nothing to decode: the parser would find no
            # part counter either, so only the judgement of the line is left to make
            random = _random_subject(buf, s, e)
            # a `/` or `(` could be a file counter (the parser then keeps it from being
            # judged random): only a plain token is judged random here
            verdict = 0
            if random and _plain_token(buf, s, e):
                verdict = RANDOM
            elif not random and not (_mentions_yenc(buf, s, e) and _may_name(buf, s, e)):
                # not random whatever the counters; without yEnc or a possible file name
                # no whole-file single segment either: dropped for having no part counter
                verdict = NO_COUNTER
            if verdict != 0:
                key[li] = 0
                part[li] = -1
                part_total[li] = -1
                tail[li] = -1
                counter_len[li] = 0
                cls[li] = verdict
                continue
        if shared:
            k = _hash_span(buf, pe, e, _hash_span(buf, s, ps, SEED_SHARED))
            part[li] = v1
            part_total[li] = v2
            tail[li] = e - ps
            counter_len[li] = pe - ps
        else:
            k = _hash_span(buf, s, e, SEED_WHOLE)
            part[li] = -1
            part_total[li] = -1
            tail[li] = -1
            counter_len[li] = 0
        key[li] = k
        # open addressing over a table at most half full
        h = k & mask
        while True:
            slot = table[h]
            if slot < 0:
                if 2 * (n_classes + 1) > table.shape[0]:
                    return -1  # the table would be over half full: a bigger one is needed
                table[h] = n_classes
                table_key[h] = k
                first[n_classes] = li
                cls[li] = n_classes
                n_classes += 1
                break
            if table_key[h] == k:
                cls[li] = slot
                break
            h = (h + U(1)) & mask
    return n_classes


@leaf_kernel
def _mentions_yenc(buf, s, e):
    """`yenc` anywhere, any case (the parser wants it as a word: this says no less)."""
    for j in range(s, e - 3):
        if (
            buf[U(j)] | 32 == 121
            and buf[U(j + 1)] | 32 == 101
            and buf[U(j + 2)] | 32 == 110
            and buf[U(j + 3)] | 32 == 99
        ):
            return True
    return False


@leaf_kernel
def _may_name(buf, s, e):
    """A `"` or a `.`: the parser's file name is a quoted text or ends in `.ext`."""
    for j in range(s, e):
        c = buf[U(j)]
        if c == 34 or c == 46:
            return True
    return False


@leaf_kernel
def _plain_token(buf, s, e):
    """No `/`, `(` or `=?`: nothing a counter or an encoded word could start with."""
    for j in range(s, e):
        c = buf[U(j)]
        if c == 47 or c == 40 or (c == 61 and j + 1 < e and buf[U(j + 1)] == 63):
            return False
    return True


@leaf_kernel
def _member_rows(cls, own_part, own_total, n_classes, class_part, class_total, row, part, total):
    for i in range(cls.shape[0]):
        c = cls[i]
        # judged lines: RANDOM's row right after the classes, NO_COUNTER's the next
        r = c if c >= 0 else n_classes + (RANDOM - c)
        row[i] = r
        if own_part[i] >= 0:  # a shared counter: the line's own numbers
            part[i] = own_part[i]
            total[i] = own_total[i]
        else:  # the whole subject is the key: its parse's numbers
            part[i] = class_part[r]
            total[i] = class_total[r]


def member_rows(
    classes: SubjectClasses, class_part: np.ndarray, class_total: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, part, part_total) per line: its row of a table a row per class, then one for
    RANDOM and one for NO_COUNTER (class_part/class_total are that table's counters), and
    its counter: its own where the class shares one, else its row's."""
    n = len(classes)
    if classes.classes + 2 != len(class_part) or len(class_part) != len(class_total):
        raise ValueError(
            f"{classes.classes} classes need {classes.classes + 2} table rows: "
            f"{len(class_part)} and {len(class_total)} given"
        )
    row = np.empty(n, np.int64)
    part = np.empty(n, np.int32)
    total = np.empty(n, np.int32)
    _member_rows(
        classes.cls, classes.part, classes.part_total, classes.classes,
        np.ascontiguousarray(class_part, np.int32), np.ascontiguousarray(class_total, np.int32),
        row, part, total,
    )  # fmt: skip
    return row, part, total


def subject_classes(buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray) -> SubjectClasses:
    """Class every subject span buf[start[i]:end[i]]: same class, same subject but k/K."""
    arr, start, end = checked_spans(buf, start, end)
    n = len(start)
    key = np.empty(n, np.uint64)
    part = np.empty(n, np.int32)
    part_total = np.empty(n, np.int32)
    tail = np.empty(n, np.int64)
    counter_len = np.empty(n, np.int64)
    cls = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    # a table at most half full (short probe chains): first one of FIRST_TABLE_BITS, then,
    # past its room, one for every line being a class of its own
    room = 1 << max(4, (2 * n).bit_length())
    for size in sorted({min(1 << FIRST_TABLE_BITS, room), room}):
        table = np.full(size, -1, np.int64)
        table_key = np.empty(size, np.uint64)
        k = _classes(
            arr, start, end, key, part, part_total, tail, counter_len, cls, first, table, table_key
        )
        if k >= 0:
            break
    return SubjectClasses(cls, key, part, part_total, tail, counter_len, first[:k].copy())
