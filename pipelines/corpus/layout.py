"""Where things live in a corpus: `<root>/<group>/<first>-<last>/<a>-<b>.xover.zz`."""

from __future__ import annotations

import re
from dataclasses import dataclass

MANIFEST_NAME = "range.json"
_SPAN = re.compile(r"^(\d+)-(\d+)$")
CODEC_SUFFIX = {"zlib": ".xover.zz", "gzip": ".xover.gz"}


def parse_span(name: str) -> tuple[int, int] | None:
    """`"4000000-5999999"` -> (4000000, 5999999); None for anything else."""
    m = _SPAN.match(name)
    if not m:
        return None
    first, last = int(m.group(1)), int(m.group(2))
    return (first, last) if first <= last else None


def span_name(first: int, last: int) -> str:
    return f"{first}-{last}"


def chunk_file_name(first: int, last: int, codec: str = "zlib") -> str:
    return f"{first}-{last}{CODEC_SUFFIX[codec]}"


@dataclass(frozen=True, order=True)
class RangeRef:
    """One range of one group: articles first..last inclusive (the planned span)."""

    group: str
    first: int
    last: int

    @property
    def name(self) -> str:
        return span_name(self.first, self.last)

    def path(self, root: str) -> str:
        return f"{root.rstrip('/')}/{self.group}/{self.name}"

    def manifest_path(self, root: str) -> str:
        return f"{self.path(root)}/{MANIFEST_NAME}"


def plan_ranges(first: int, last: int, range_size: int) -> list[tuple[int, int]]:
    """Ranges aligned to multiples of range_size that cover first..last."""
    if range_size <= 0:
        raise ValueError("range_size must be positive")
    spans = []
    start = (first // range_size) * range_size
    while start <= last:
        spans.append((start, start + range_size - 1))
        start += range_size
    return spans


def plan_chunks(first: int, last: int, chunk_size: int) -> list[tuple[int, int]]:
    """Chunks of chunk_size articles that tile first..last exactly."""
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    return [(a, min(a + chunk_size - 1, last)) for a in range(first, last + 1, chunk_size)]
