"""What to fetch: a group's history as ranges, each range as the chunks still missing.

Ranges are aligned to multiples of the range size (CORPUS.md); chunks tile a range on a
grid of the chunk size from its first article. Whatever is already stored is left alone:
the plan is always "the range minus its stored chunks", so a capture killed at any point
resumes by planning again, and fetches only what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.corpus.layout import RangeRef, plan_ranges
from pipelines.corpus.manifest import ChunkEntry


@dataclass(frozen=True)
class PlanSettings:
    range_size: int = 2_000_000
    chunk_size: int = 100_000
    newest_first: bool = False  # history is fetched oldest first unless this is set
    headroom: int = 1_000  # articles below the server's high mark left for later

    def __post_init__(self) -> None:
        if self.range_size <= 0 or self.chunk_size <= 0:
            raise ValueError("range and chunk sizes must be positive")
        if self.headroom < 0:
            raise ValueError("headroom cannot be negative")


def fetch_limit(high: int, settings: PlanSettings) -> int:
    """The last article to fetch now: overview lines appear after their article numbers."""
    return high - settings.headroom


def group_ranges(group: str, low: int, limit: int, settings: PlanSettings) -> list[RangeRef]:
    """The ranges holding articles low..limit, in the order they are to be fetched."""
    if limit < low:
        return []
    refs = [RangeRef(group, a, b) for a, b in plan_ranges(low, limit, settings.range_size)]
    return refs[::-1] if settings.newest_first else refs


def usable_chunks(entries: list[ChunkEntry], ref: RangeRef) -> list[ChunkEntry]:
    """Stored chunks that can go into the manifest: inside the range and not overlapping.

    Overlaps only arise when chunk sizes changed between runs; the earliest-starting,
    widest chunk is kept and the others are ignored (left on disk, never listed).
    """
    chosen: list[ChunkEntry] = []
    end = ref.first - 1
    for entry in sorted(entries, key=lambda e: (e.first, -e.last)):
        if entry.first > end and ref.first <= entry.first and entry.last <= ref.last:
            chosen.append(entry)
            end = entry.last
    return chosen


def missing_spans(
    ref: RangeRef, stored: list[ChunkEntry], low: int, limit: int, chunk_size: int
) -> list[tuple[int, int]]:
    """The chunks to fetch so that ref.first..min(ref.last, limit) is covered.

    Grid cells wholly below the group's low mark (expired articles) become one chunk, so
    an old group's first range does not cost a command per empty cell.
    """
    upto = min(ref.last, limit)
    gaps: list[tuple[int, int]] = []
    at = ref.first
    for entry in sorted(stored, key=lambda e: e.first):
        if entry.first > at:
            gaps.append((at, min(entry.first - 1, upto)))
        at = max(at, entry.last + 1)
    if at <= upto:
        gaps.append((at, upto))
    spans: list[tuple[int, int]] = []
    for first, last in gaps:
        if first > last:
            continue
        spans.extend(_on_grid(ref.first, first, last, low, chunk_size))
    return spans


def _on_grid(origin: int, first: int, last: int, low: int, size: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    a = first
    while a <= last:
        cell_end = origin + ((a - origin) // size + 1) * size - 1
        b = min(cell_end, last)
        if b < low and out and out[-1][1] < low and out[-1][1] == a - 1:
            out[-1] = (out[-1][0], b)  # still below the low mark: grow the empty chunk
        else:
            out.append((a, b))
        a = b + 1
    return out
