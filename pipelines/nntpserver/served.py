"""The corpus a `serve-nntp` server serves: groups, their bounds, and overview lines by number.

Chunks are inflated on demand and a few kept in memory, so a server can stand in front of
a corpus much larger than its memory. A request whose span is exactly a stored chunk (what
a capture with the same chunk size asks for) is answered from the stored compressed bytes.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from pipelines.articles.raw import RawArticles, open_articles
from pipelines.articles.store import BodyStore, open_bodies
from pipelines.corpus.codec import inflate
from pipelines.corpus.reader import CorpusReader

_KEEP_CHUNKS = 64


@dataclass(frozen=True)
class ServedChunk:
    path: str
    first: int
    last: int
    lines: int


@dataclass
class ChunkText:
    """One chunk's lines: the text and where each line starts and ends, by article number."""

    text: bytes
    numbers: np.ndarray
    starts: np.ndarray
    ends: np.ndarray  # after the line's LF


@dataclass
class ServedGroup:
    name: str
    chunks: list[ServedChunk] = field(default_factory=list)
    low: int = 0
    high: int = 0
    count: int = 0
    visible_high: int | None = None  # the tail tests reveal articles step by step
    # growth: articles become visible at grow_rate a second from grow_from on (0: off)
    grow_rate: float = 0.0
    grow_from: int = 0
    grow_started: float = 0.0

    def visible(self, now: float) -> int:
        """The high mark GROUP reports at monotonic time `now`."""
        high = self.high if self.visible_high is None else min(self.high, self.visible_high)
        if self.grow_rate > 0:
            grown = self.grow_from + int(self.grow_rate * max(0.0, now - self.grow_started))
            high = min(high, grown)
        return high


class ServedCorpus:
    def __init__(self, root: str) -> None:
        self.reader = CorpusReader(root)
        # a generated corpus's stored bodies (beside it): served instead of made-up ones
        self.bodies: BodyStore | None = open_bodies(root)
        # whole articles stored as posted (spots' headers, their NZBs' bodies)
        self.articles: RawArticles | None = open_articles(root)
        self.groups: dict[str, ServedGroup] = {}
        self._cache: OrderedDict[str, ChunkText] = OrderedDict()
        self._lock = threading.Lock()
        for name in self.reader.groups():
            group = ServedGroup(name)
            for info in self.reader.ranges(name):
                if info.manifest is None:
                    continue
                folder = info.ref.path(self.reader.root)
                for entry in info.manifest.chunks:
                    group.chunks.append(
                        ServedChunk(f"{folder}/{entry.file}", entry.first, entry.last, entry.lines)
                    )
            if group.chunks:
                self._bounds(group)
                self.groups[name] = group

    def _bounds(self, group: ServedGroup) -> None:
        group.count = sum(c.lines for c in group.chunks)
        filled = [c for c in group.chunks if c.lines]
        if not filled:  # RFC 3977: an empty group reports high = low - 1
            group.low, group.high = group.chunks[0].first, group.chunks[0].first - 1
            return
        first, last = self.text(filled[0]).numbers, self.text(filled[-1]).numbers
        group.low = int(first[first >= 0].min())
        group.high = int(last.max())

    def bounds(self, name: str) -> tuple[int, int, int]:
        """(count, low, high) as GROUP reports them, honouring a revealed high mark."""
        group = self.groups[name]
        return group.count, group.low, group.visible(time.monotonic())

    def grow(self, rate: float, visible_at_start: int) -> None:
        """From now on, each group's high mark moves up `rate` articles a second from
        `visible_at_start` articles above its low mark, as a group being posted to."""
        now = time.monotonic()
        for group in self.groups.values():
            group.grow_rate = rate
            group.grow_from = group.low - 1 + visible_at_start
            group.grow_started = now

    def text(self, chunk: ServedChunk) -> ChunkText:
        with self._lock:
            cached = self._cache.get(chunk.path)
            if cached is not None:
                self._cache.move_to_end(chunk.path)
                return cached
        loaded = _load(self.reader.fs.cat_file(chunk.path))
        with self._lock:
            self._cache[chunk.path] = loaded
            while len(self._cache) > _KEEP_CHUNKS:
                self._cache.popitem(last=False)
        return loaded

    def stored_payload(self, name: str, first: int, last: int) -> tuple[bytes, int] | None:
        """(stored compressed bytes, lines) when first..last is exactly one stored chunk."""
        for chunk in self.groups[name].chunks:
            if chunk.first == first and chunk.last == last:
                return bytes(self.reader.fs.cat_file(chunk.path)), chunk.lines
        return None

    def lines(self, name: str, first: int, last: int) -> bytes:
        """The overview lines of articles first..last (CRLF ends), in stored order."""
        out = []
        for chunk in self.groups[name].chunks:
            if chunk.last < first or chunk.first > last:
                continue
            text = self.text(chunk)
            keep = np.flatnonzero((text.numbers >= first) & (text.numbers <= last))
            if len(keep) == len(text.numbers):
                out.append(text.text)
                continue
            # lines of one chunk come in article order: slice runs, not single lines
            for run in np.split(keep, np.flatnonzero(np.diff(keep) != 1) + 1):
                if len(run):
                    out.append(text.text[text.starts[run[0]] : text.ends[run[-1]]])
        return b"".join(out)

    def find(self, name: str, number: int) -> bytes | None:
        """One article's overview line (without its line end), or None."""
        for chunk in self.groups[name].chunks:
            if chunk.first <= number <= chunk.last:
                text = self.text(chunk)
                hit = np.flatnonzero(text.numbers == number)
                if len(hit):
                    i = hit[0]
                    return text.text[text.starts[i] : text.ends[i]].rstrip(b"\r\n")
        return None


def _load(payload: bytes) -> ChunkText:
    inflated = inflate(payload)
    text = inflated.data
    if text and not text.endswith(b"\n"):
        text += b"\r\n"
    arr = np.frombuffer(text, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10) + 1
    starts = np.concatenate(([0], ends[:-1])).astype(np.int64) if len(ends) else ends
    numbers = np.empty(len(starts), dtype=np.int64)
    for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
        tab = text.find(b"\t", s, e)
        try:
            numbers[i] = int(text[s : tab if tab >= 0 else e])
        except ValueError:
            numbers[i] = -1  # a bad line is never served by number
    return ChunkText(text, numbers, starts, ends.astype(np.int64))
