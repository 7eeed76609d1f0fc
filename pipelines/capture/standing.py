"""Where capture and the index stand in one group: what an operator asks first.

Read from the corpus (the range folders, the manifests of the ranges the indexer has not
taken, the newest range's chunk files, the tail mark) and the catalog (`IndexedRanges`):
no news server. The server's low mark, when known (a capture pass asked GROUP), tells how
much history is still to fetch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.tail import read_tail
from pipelines.corpus.fs import is_temporary
from pipelines.corpus.layout import MANIFEST_NAME, RangeRef, parse_span, plan_ranges
from pipelines.corpus.reader import CorpusReader


@dataclass(frozen=True)
class Standing:
    group: str
    ranges_stored: int = 0  # range folders
    ranges_complete: int = 0
    growing: tuple[str, ...] = ()  # ranges being filled (incomplete), oldest first
    stored_high: int = -1  # the highest article in a stored chunk (-1: none)
    tail_first: int = -1  # the tail's first article: history lies below (-1: no tail yet)
    ranges_indexed: int = 0
    indexed_through: int = -1  # the last article of the unbroken indexed ranges from the
    # group's first stored range (-1: its first range is not indexed)
    waiting: int = 0  # ranges complete, not indexed yet: the prefetch's distance ahead
    waiting_bytes: int = 0
    history_left: int = -1  # ranges below the tail not complete yet (-1: low mark unknown)
    low: int = -1  # the server's low mark, when known

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["growing"] = list(self.growing)
        return doc


def standing(
    corpus: CorpusReader,
    indexed: IndexedRanges,
    group: str,
    range_size: int,
    low: int | None = None,
) -> Standing:
    try:
        refs = corpus.range_refs(group)
    except FileNotFoundError:
        refs = []
    taken = indexed.spans(group)
    complete, growing, waiting, waiting_bytes = set(), [], 0, 0
    for ref in refs:
        if (ref.first, ref.last) in taken:  # only complete ranges are indexed
            complete.add(ref)
            continue
        info = corpus.range_info(ref)
        if info.complete and info.manifest is not None:
            complete.add(ref)
            waiting += 1
            waiting_bytes += sum(c.bytes for c in info.manifest.chunks)
        else:
            growing.append(ref.name)
    through = -1
    for ref in refs:
        if (ref.first, ref.last) not in taken:
            break
        through = ref.last
    mark = read_tail(corpus.fs, corpus.root, group)
    tail_first = mark.first if mark is not None else -1
    history_left = -1
    if low is not None and mark is not None:
        history = plan_ranges(low, mark.first - 1, range_size) if low < mark.first else []
        history_left = sum(RangeRef(group, a, b) not in complete for a, b in history)
    return Standing(
        group,
        ranges_stored=len(refs),
        ranges_complete=len(complete),
        growing=tuple(growing),
        stored_high=_stored_high(corpus, refs),
        tail_first=tail_first,
        ranges_indexed=sum((r.first, r.last) in taken for r in refs),
        indexed_through=through,
        waiting=waiting,
        waiting_bytes=waiting_bytes,
        history_left=history_left,
        low=-1 if low is None else low,
    )


def _stored_high(corpus: CorpusReader, refs: list[RangeRef]) -> int:
    """The last article of the newest whole chunk file (a chunk is on disk whole or not
    at all, manifest or not: a killed pass leaves chunks before their manifest)."""
    for ref in reversed(refs):
        highest = -1
        for path in corpus.fs.ls(ref.path(corpus.root), detail=False):
            name = path.rsplit("/", 1)[-1]
            if name == MANIFEST_NAME or is_temporary(name) or ".xover." not in name:
                continue
            span = parse_span(name.split(".xover.", 1)[0])
            if span is not None:
                highest = max(highest, span[1])
        if highest >= 0:
            return highest
    return -1
