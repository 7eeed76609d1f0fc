"""Subjects parsed once per class: a file's lines differ only in their part counter.

`kernels.classes` puts every line in a class with the lines whose subject is the same
but for the numbers of the last `(k/K)`. One line of each class is decoded (RFC 2047)
and parsed; its fields are every member's, with the member's own k and K. A class whose
file name takes in the counter (`"name (3/50)"` quoted) would give its members the
representative's name: its members are parsed one by one instead.
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np

from kernels.classes import subject_classes
from kernels.subject import SubjectFields, parse_subjects
from pipelines.rfc2047 import decode_subjects

# per line, from the class's representative
_SHARED = tuple(f.name for f in fields(SubjectFields) if f.name not in ("part", "part_total"))


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
    out = SubjectFields(
        part=np.where(classes.part >= 0, classes.part, rep.part[classes.cls]),
        part_total=np.where(classes.part >= 0, classes.part_total, rep.part_total[classes.cls]),
        **{name: getattr(rep, name)[classes.cls] for name in _SHARED},
    )
    if overlap.any():
        buf, out = _parse_each(data, start, end, np.flatnonzero(overlap[classes.cls]), buf, out)
    return buf, out


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
