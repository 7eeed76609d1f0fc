"""Plain-Python reference of kernels.grouping.file_runs: runs as lists of row indices."""

from __future__ import annotations


def file_runs(key, date, number, article, nbytes, gap: int) -> list[dict]:
    rows = sorted(range(len(key)), key=lambda i: (int(key[i]), int(date[i]), int(article[i])))
    runs: list[list[int]] = []
    for pos, i in enumerate(rows):
        prev = rows[pos - 1] if pos else None
        if prev is None or key[i] != key[prev] or int(date[i]) - int(date[prev]) > gap:
            runs.append([])
        runs[-1].append(i)
    out = []
    for members in sorted(runs, key=lambda m: min(int(article[i]) for i in m)):
        ordered = sorted(members, key=lambda i: (int(number[i]), int(article[i])))
        seen: set[int] = set()
        kept = []
        dup = []
        for i in ordered:
            is_dup = int(number[i]) in seen
            dup.append(is_dup)
            if not is_dup:
                seen.add(int(number[i]))
                kept.append(i)
        out.append(
            {
                "rows": ordered,
                "duplicate": dup,
                "first_date": min(int(date[i]) for i in kept),
                "last_date": max(int(date[i]) for i in kept),
                "first_article": min(int(article[i]) for i in kept),
                "last_article": max(int(article[i]) for i in kept),
                "parts": len(kept),
                "bytes": sum(int(nbytes[i]) for i in kept),
            }
        )
    return out
