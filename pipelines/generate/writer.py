"""Storing a generated corpus: ranges and chunks through CorpusWriter, truth, generate.json.

Each group's numbers are cut into ranges aligned by `plan_ranges` and chunks by
`plan_chunks`; every range is written whole (chunks first, a complete `range.json`
last), empty chunks included, so the last range of a group is complete too.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
            # compressed piece by piece: the chunk's lines are never one big buffer
            deflater = compressor(writer.codec, writer.level)
            payload = [
                deflater.compress(piece)
                for piece in renderer.pieces(arts.name, arts.segments[lo:hi], numbers[lo:hi])
            ]
            payload.append(deflater.flush())
            entry = writer.write_compressed_chunk(
                ref, c_first, c_last, b"".join(payload), int(hi - lo), writer.codec
            )
            entries.append(entry)
            stored.lines += entry.lines
            stored.bytes += entry.bytes
            advance(int(hi - lo))
        writer.write_manifest(ref, entries, complete=True, server="usenet-indexer generate")
        stored.ranges += 1
        stored.chunks += len(entries)
    return stored


def compressor(codec: str, level: int) -> Any:
    """A streaming deflater for a chunk, as `codec.deflate` makes one: ISA-L where present."""
    wbits = 31 if codec == "gzip" else 15
    try:
        from isal import isal_zlib
    except ImportError:  # pragma: no cover - depends on the install
        return zlib.compressobj(level, zlib.DEFLATED, wbits)
    return isal_zlib.compressobj(min(level, 3), isal_zlib.DEFLATED, wbits)


def write_json(url: str, doc: dict[str, object]) -> None:
    fs, path = open_fs(url)
    atomic_put(fs, path, (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode())
