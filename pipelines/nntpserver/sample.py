"""Sample corpora for `serve-nntp` tests and benchmarks: binary-group overview lines.

Shaped like real binary groups (DESIGN.md): multi-part yEnc uploads `"name.partNN.rar"
yEnc (k/N)` from a few posters, 32-hex random subjects, expired gaps in the numbering,
and Xref. Deterministic for a seed. `pipelines.generate` makes far richer corpora with
ground truth; this one exists so the capture can be exercised and measured on any number
of lines without it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from pipelines.corpus.layout import RangeRef, plan_chunks, plan_ranges
from pipelines.corpus.writer import CorpusWriter

_POSTERS = [
    "Yenc@power-post.org (Yenc-PP-GUI)",
    "poster <poster@example.com>",
    "ano <nymous@nowhere.invalid>",
    "=?UTF-8?B?w4l0w6k=?= <ete@example.org>",
]
_WORDS = ["Linux", "Debian", "Holiday", "Photos", "Album", "Series", "Docu", "Archive"]


def overview_lines(
    group: str, first: int, last: int, seed: int = 1, gaps: float = 0.05
) -> Iterator[bytes]:
    """One overview line (CRLF) per existing article of first..last."""
    rng = random.Random(f"{group}:{first}:{seed}")
    number = first
    while number <= last:
        parts = rng.choice((1, 5, 20, 50))
        name = f"{rng.choice(_WORDS)}.{rng.choice(_WORDS)}.{rng.randrange(10**6):06d}"
        poster = rng.choice(_POSTERS)
        hexname = rng.random() < 0.3
        for k in range(1, parts + 1):
            if number > last:
                return
            if rng.random() >= gaps:
                if hexname:
                    subject = f"{rng.getrandbits(128):032x}"
                else:
                    subject = f'[{k % 7 + 1}/7] - "{name}.part{k:02d}.rar" yEnc ({k}/{parts})'
                size = rng.randrange(300_000, 800_000)
                day = 1 + number % 28
                line = (
                    f"{number}\t{subject}\t{poster}\t"
                    f"Mon, {day:02d} Jan 2024 12:{number % 60:02d}:00 +0000\t"
                    f"<{rng.getrandbits(64):016x}.{number}@example.invalid>\t\t"
                    f"{size}\t{size // 128}\tXref: news.example {group}:{number}\r\n"
                )
                yield line.encode()
            number += 1


def write_sample_corpus(
    root: str,
    groups: dict[str, tuple[int, int]],
    range_size: int,
    chunk_size: int,
    seed: int = 1,
    complete: bool = True,
) -> dict[str, list[bytes]]:
    """Write each group's articles low..high as ranges and chunks; the lines by group."""
    writer = CorpusWriter(root)
    written: dict[str, list[bytes]] = {}
    for group, (low, high) in groups.items():
        lines_of_group: list[bytes] = []
        for a, b in plan_ranges(low, high, range_size):
            ref = RangeRef(group, a, b)
            entries = []
            # the newest range is stored as far as the group goes, like a capture leaves it
            for c1, c2 in plan_chunks(a, min(b, high), chunk_size):
                lines = list(overview_lines(group, max(c1, low), min(c2, high), seed))
                lines_of_group.extend(lines)
                entries.append(writer.write_chunk(ref, c1, c2, b"".join(lines)))
            writer.write_manifest(ref, entries, complete=complete and b <= high)
        written[group] = lines_of_group
    return written
