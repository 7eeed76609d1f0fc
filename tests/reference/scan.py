"""Plain-Python reference of kernels.scan."""

from __future__ import annotations

from kernels.scan import (
    BAD_NUMBER,
    DUPLICATE,
    MIN_FIELDS,
    N_FIELDS,
    OK,
    OUT_OF_SPAN,
    TOO_FEW_FIELDS,
    UNTERMINATED,
)


def scan_lines(data: bytes, first: int, last: int, terminated: bool = True) -> list[dict]:
    """One dict a line: offsets, fields (as bytes), number, status, non_utf8."""
    rows: list[dict] = []
    if not data:
        return rows
    terminated = terminated or data.endswith(b"\n")
    pieces = data.split(b"\n")
    if data.endswith(b"\n"):
        pieces.pop()
    pos = 0
    seen: set[int] = set()
    for idx, raw in enumerate(pieces):
        start = pos
        line = raw[:-1] if raw.endswith(b"\r") else raw
        fields = line.split(b"\t")
        offsets = []
        off = start
        for f in fields:
            offsets.append((off, off + len(f)))
            off += len(f) + 1
        end = start + len(line)
        while len(offsets) < N_FIELDS:
            offsets.append((end, end))
        try:
            line.decode("utf-8")
            non_utf8 = False
        except UnicodeDecodeError:
            non_utf8 = True
        num_text = fields[0]
        if num_text and len(num_text) <= 18 and all(48 <= c <= 57 for c in num_text):
            number = int(num_text)
        else:
            number = -1
        is_last = idx == len(pieces) - 1
        if is_last and not terminated:
            status = UNTERMINATED
        elif len(fields) < MIN_FIELDS:
            status = TOO_FEW_FIELDS
        elif number < 0:
            status = BAD_NUMBER
        elif not first <= number <= last:
            status = OUT_OF_SPAN
        elif number in seen:
            status = DUPLICATE
        else:
            status = OK
        if status == OK:
            seen.add(number)
        rows.append(
            {
                "line": (start, end),
                "fields": offsets[:N_FIELDS],
                "n_fields": min(len(fields), N_FIELDS + 1),
                "number": number,
                "status": status,
                "non_utf8": non_utf8,
            }
        )
        pos += len(raw) + 1
    return rows
