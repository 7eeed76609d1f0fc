"""Subjects parsed once per class: a file's lines differ only in their part counter.

`kernels.classes` puts every line in a class with the lines whose subject is the same
but for the numbers of the last `(k/K)`. One line of each class is decoded (RFC 2047)
and parsed; its fields are every member's, with the member's own k and K. A class whose
file name takes in the counter (`"name (3/50)"` quoted) would give its members the
representative's name: its members are parsed one by one instead.

A line the classes kernel judged (a random subject, or no part counter to be found) is not
parsed: it gets the empty fields and the verdict, which is all a dropped line is read for.
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np

from kernels.classes import NO_COUNTER, RANDOM, subject_classes
from kernels.subject import SubjectFields, parse_subjects
from pipelines.rfc2047 import decode_subjects

# what a line judged by the classes kernel holds: nothing but the verdict, by its `cls`
_EMPTY = {f.name: 0 for f in fields(SubjectFields)} | {
    "part": -1,
    "part_total": -1,
    "file_index": -1,
    "file_total": -1,
    "name_start": -1,
    "name_end": -1,
    "volume": -1,
}
_JUDGED = {RANDOM: _EMPTY | {"random_subject": True}, NO_COUNTER: _EMPTY}


def parse_shared(
    data: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, SubjectFields]:
    """(buf, fields) of subjects data[start[i]:end[i]], the same as decoding and parsing
    each: `fields.name_start/name_end` index `buf` and give each line's file name."""
    classes = subject_classes(data, start, end)
    reps = classes.first
    buf, rs, re_ = decode_subjects(data, start[reps], end[reps])
    rep = parse_subjects(buf, rs, re_)
    # the representative's counter in its decoded text: the same distance from its end
    tail = classes.tail[reps]
    counter_start = re_ - tail
    counter_end = counter_start + classes.counter_len[reps]
    overlap = (tail >= 0) & (rep.name_start < counter_end) & (rep.name_end > counter_start)
    # judged lines take the rows after the last class: RANDOM the first, NO_COUNTER the next
    cls = np.where(classes.cls >= 0, classes.cls, len(reps) + (RANDOM - classes.cls))
    rows = {f.name: _with_judged(getattr(rep, f.name), f.name)[cls] for f in fields(rep)}
    shared = classes.part >= 0
    rows["part"] = np.where(shared, classes.part, rows["part"])
    rows["part_total"] = np.where(shared, classes.part_total, rows["part_total"])
    out = SubjectFields(**rows)
    if overlap.any():
        own = np.flatnonzero(np.append(overlap, [False, False])[cls])
        buf, out = _parse_each(data, start, end, own, buf, out)
    return buf, out


def _with_judged(column: np.ndarray, name: str) -> np.ndarray:
    verdicts = [_JUDGED[RANDOM][name], _JUDGED[NO_COUNTER][name]]
    return np.append(column, np.array(verdicts, column.dtype))


def _parse_each(
    data: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    rows: np.ndarray,
    buf: np.ndarray,
    out: SubjectFields,
) -> tuple[np.ndarray, SubjectFields]:
    """Decode and parse these lines on their own; their names go after buf."""
    own_buf, own_start, own_end = decode_subjects(data, start[rows], end[rows])
    own = parse_subjects(own_buf, own_start, own_end)
    base = len(buf)
    arrays = {f.name: getattr(out, f.name).copy() for f in fields(SubjectFields)}
    for name, column in arrays.items():
        column[rows] = getattr(own, name)
    named = own.name_start >= 0
    arrays["name_start"][rows] = np.where(named, own.name_start + base, -1)
    arrays["name_end"][rows] = np.where(named, own.name_end + base, -1)
    return np.concatenate([buf, own_buf]), replace(out, **arrays)
