"""Plain-Python reference of kernels.classes, with a regex and a dict."""

from __future__ import annotations

from kernels.classes import NO_COUNTER, RANDOM, SEED_SHARED, SEED_WHOLE
from pipelines.subjects.file_names import random_subject
from pipelines.subjects.hashing import hash_bytes
from pipelines.subjects.rules import PART_RE


def subject_classes(subjects: list[bytes]) -> dict[str, list[int]]:
    """Per line: class, key, part, part_total, tail, counter_len; per class: first line."""
    out: dict[str, list[int]] = {
        k: [] for k in ("cls", "key", "part", "part_total", "tail", "counter_len", "first")
    }
    seen: dict[int, int] = {}
    for line, s in enumerate(subjects):
        counters = list(PART_RE.finditer(s))
        verdict = 0
        if not counters and b"?=" not in s:
            if random_subject(s):
                if not any(c in s for c in (b"/", b"(", b"=?")):
                    verdict = RANDOM
            elif b"yenc" not in s.lower() or (b'"' not in s and b"." not in s):
                # no yEnc whole-file single segment: that needs a file name, quoted or
                # with an extension
                verdict = NO_COUNTER
        if verdict:
            for name, value in zip(
                ("cls", "key", "part", "part_total", "tail", "counter_len"),
                (verdict, 0, -1, -1, -1, 0),
                strict=True,
            ):
                out[name].append(value)
            continue
        enc_end = s.rfind(b"?=")
        enc_end = enc_end + 2 if enc_end >= 0 else 0
        m = counters[-1] if counters else None
        if m is not None and m.start() >= enc_end:
            key = hash_bytes(s[m.end() :], hash_bytes(s[: m.start()], int(SEED_SHARED)))
            part, total = int(m.group(1)), int(m.group(2))
            tail, length = len(s) - m.start(), m.end() - m.start()
        else:
            key = hash_bytes(s, int(SEED_WHOLE))
            part, total, tail, length = -1, -1, -1, 0
        if key not in seen:
            seen[key] = len(out["first"])
            out["first"].append(line)
        for name, value in (
            ("cls", seen[key]),
            ("key", key),
            ("part", part),
            ("part_total", total),
            ("tail", tail),
            ("counter_len", length),
        ):
            out[name].append(value)
    return out


def member_rows(
    cls: list[int],
    part: list[int],
    part_total: list[int],
    n_classes: int,
    class_part: list[int],
    class_total: list[int],
) -> list[tuple[int, int, int]]:
    """(row, part, part_total) per line: judged lines' rows after the classes' (RANDOM's,
    then NO_COUNTER's); a shared counter's own numbers, else the row's."""
    rows = []
    for c, k, total in zip(cls, part, part_total, strict=True):
        row = c if c >= 0 else n_classes + (RANDOM - c)
        rows.append((row, k, total) if k >= 0 else (row, class_part[row], class_total[row]))
    return rows
