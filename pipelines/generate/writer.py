"""Storing a generated corpus: ranges and chunks through CorpusWriter, truth, generate.json.

Each group's numbers are cut into ranges aligned by `plan_ranges` and chunks by
`plan_chunks`; every range is written whole (chunks first, a complete `range.json`
last), empty chunks included, so the last range of a group is complete too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.corpus.layout import RangeRef, plan_chunks, plan_ranges
from pipelines.corpus.writer import CorpusWriter
from pipelines.generate.render import LineRenderer
from pipelines.generate.schedule import GroupArticles


@dataclass
class StoredGroup:
    name: str
    priority: int
    first: int  # first and last article number that exists
    last: int
    lines: int
    ranges: int
    chunks: int
    bytes: int


def write_group(
    writer: CorpusWriter,
    renderer: LineRenderer,
    arts: GroupArticles,
    priority: int,
    range_size: int,
    chunk_size: int,
    advance: Callable[[int], None],
) -> StoredGroup:
    numbers = arts.numbers
    stored = StoredGroup(arts.name, priority, int(numbers[0]), int(numbers[-1]), 0, 0, 0, 0)
    for r_first, r_last in plan_ranges(stored.first, stored.last, range_size):
        ref = RangeRef(arts.name, r_first, r_last)
        entries = []
        for c_first, c_last in plan_chunks(r_first, r_last, chunk_size):
            lo, hi = np.searchsorted(numbers, [c_first, c_last + 1])
            data = renderer.render(arts.name, arts.segments[lo:hi], numbers[lo:hi])
            entry = writer.write_chunk(ref, c_first, c_last, data)
            entries.append(entry)
            stored.lines += entry.lines
            stored.bytes += entry.bytes
            advance(int(hi - lo))
        writer.write_manifest(ref, entries, complete=True, server="usenet-indexer generate")
        stored.ranges += 1
        stored.chunks += len(entries)
    return stored


def write_json(url: str, doc: dict[str, object]) -> None:
    fs, path = open_fs(url)
    atomic_put(fs, path, (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode())
