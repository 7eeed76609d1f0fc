"""Subjects parsed once per class: a file's lines differ only in their part counter.

`kernels.classes` puts every line in a class with the lines whose subject is the same
but for the numbers of the last `(k/K)`. One line of each class is decoded (RFC 2047)
and parsed; its fields are every member's, with the member's own k and K. A class whose
file name takes in the counter (`"name (3/50)"` quoted) would give its members the
representative's name: its members are parsed one by one instead.

A line the classes kernel judged (a random subject, or no part counter to be found) is not
parsed: it gets the empty fields and the verdict, which is all a dropped line is read for.

`share_subjects` keeps the fields a row per class (and a row per line parsed on its own)
with each line's row: the header pass reads most fields only for the lines it keeps, so
it lays out per line just those (a third of a chunk's lines are dropped, and a class's
row is ~14 columns). `parse_shared` lays every field out per line.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from kernels.classes import NO_COUNTER, RANDOM, member_rows, subject_classes
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


@dataclass(frozen=True)
class SharedSubjects:
    """Parsed subjects a row per class: `table`'s row `row[i]` holds line i's fields, but
    for its counter, which is `part[i]`/`part_total[i]`."""

    buf: np.ndarray  # uint8: table.name_start/name_end index it
    # rows: the classes, then RANDOM's and NO_COUNTER's verdicts, then the lines parsed
    # on their own
    table: SubjectFields
    row: np.ndarray  # int64 per line
    part: np.ndarray  # int32 per line
    part_total: np.ndarray  # int32 per line

    def __len__(self) -> int:
        return len(self.row)

    def lines(self) -> SubjectFields:
        """Every field laid out a line."""
        columns = {f.name: getattr(self.table, f.name)[self.row] for f in fields(SubjectFields)}
        columns["part"] = self.part
        columns["part_total"] = self.part_total
        return SubjectFields(**columns)


def parse_shared(
    data: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, SubjectFields]:
    """(buf, fields) of subjects data[start[i]:end[i]], the same as decoding and parsing
    each: `fields.name_start/name_end` index `buf` and give each line's file name."""
    shared = share_subjects(data, start, end)
    return shared.buf, shared.lines()


def share_subjects(data: np.ndarray, start: np.ndarray, end: np.ndarray) -> SharedSubjects:
    """The subjects data[start[i]:end[i]] parsed a class at a time (see the module doc)."""
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
    table = SubjectFields(
        **{f.name: _with_judged(getattr(rep, f.name), f.name) for f in fields(SubjectFields)}
    )
    # a line with a shared counter has its own numbers; another, its subject's (whole)
    row, part, part_total = member_rows(classes, table.part, table.part_total)
    if overlap.any():
        own = np.flatnonzero(np.append(overlap, [False, False])[row])
        buf, table = _parse_each(data, start[own], end[own], buf, table)
        row[own] = len(table) - len(own) + np.arange(len(own))
        part[own] = table.part[row[own]]
        part_total[own] = table.part_total[row[own]]
    return SharedSubjects(buf, table, row, part, part_total)


def _with_judged(column: np.ndarray, name: str) -> np.ndarray:
    verdicts = [_JUDGED[RANDOM][name], _JUDGED[NO_COUNTER][name]]
    return np.append(column, np.array(verdicts, column.dtype))


def _parse_each(
    data: np.ndarray, start: np.ndarray, end: np.ndarray, buf: np.ndarray, table: SubjectFields
) -> tuple[np.ndarray, SubjectFields]:
    """Decode and parse these subjects on their own: rows after table's, names after buf."""
    own_buf, own_start, own_end = decode_subjects(data, start, end)
    own = parse_subjects(own_buf, own_start, own_end)
    base = len(buf)
    named = own.name_start >= 0
    columns = {f.name: getattr(own, f.name) for f in fields(SubjectFields)}
    columns["name_start"] = np.where(named, own.name_start + base, -1)
    columns["name_end"] = np.where(named, own.name_end + base, -1)
    rows = {
        name: np.concatenate([getattr(table, name), column]) for name, column in columns.items()
    }
    return np.concatenate([buf, own_buf]), SubjectFields(**rows)
