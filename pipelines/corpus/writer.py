"""The corpus writer: chunks first, `range.json` last, each atomically (CORPUS.md).

The generator uses it, and so does the NNTP capture. A crash at any point leaves a
corpus whose manifests name only whole chunk files.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pipelines.corpus.backbones import backbone_of
from pipelines.corpus.codec import deflate, empty_stream, inflate, sniff
from pipelines.corpus.fs import atomic_put, is_temporary, open_fs
from pipelines.corpus.layout import MANIFEST_NAME, RangeRef, chunk_file_name, parse_span
from pipelines.corpus.manifest import ChunkEntry, RangeManifest, chunks_cover


class CorpusWriter:
    def __init__(
        self,
        root: str,
        codec: str = "zlib",
        level: int = 2,
        storage_options: dict[str, Any] | None = None,
    ) -> None:
        if codec not in ("zlib", "gzip"):
            raise ValueError(f"codec must be zlib or gzip, not {codec!r}")
        self.root_url = root
        self.fs, self.root = open_fs(root, storage_options)
        self.backbone = backbone_of(self.root)  # named in every manifest (backbones.py)
        self.codec = codec
        self.level = level

    def write_chunk(self, ref: RangeRef, first: int, last: int, lines: bytes) -> ChunkEntry:
        """Compress and store the overview lines of articles first..last (CRLF ends)."""
        n_lines = lines.count(b"\n") + (1 if lines and not lines.endswith(b"\n") else 0)
        payload = deflate(lines, self.codec, self.level)
        return self.write_compressed_chunk(ref, first, last, payload, n_lines, self.codec)

    def write_compressed_chunk(
        self, ref: RangeRef, first: int, last: int, payload: bytes, n_lines: int, codec: str
    ) -> ChunkEntry:
        """Store an already compressed stream as it is (capture keeps the server's bytes).

        An empty payload is an empty span (the server had no article there, e.g. below the
        group's low mark): it is stored as the codec's empty stream, never as 0 bytes.
        """
        if not ref.first <= first <= last <= ref.last:
            raise ValueError(f"chunk {first}-{last} is outside range {ref.name}")
        if not payload:
            payload = empty_stream(codec)
        kind = sniff(payload)
        if kind != codec:
            raise ValueError(f"chunk payload is {kind}, not {codec}")
        name = chunk_file_name(first, last, codec)
        atomic_put(self.fs, f"{ref.path(self.root)}/{name}", payload)
        return ChunkEntry(name, first, last, n_lines, len(payload))

    def write_manifest(
        self,
        ref: RangeRef,
        chunks: list[ChunkEntry],
        complete: bool,
        filtered: bool = False,
        server: str | None = None,
        fetched_at: dt.datetime | None = None,
    ) -> RangeManifest:
        """Write range.json last; `complete` only once every chunk of the range is stored."""
        ordered = tuple(sorted(chunks, key=lambda c: c.first))
        extra: dict[str, Any] = {}
        if self.backbone:
            extra["backbone"] = self.backbone
        if server:
            extra["server"] = server
        if fetched_at is not None:
            extra["fetched_at"] = fetched_at.isoformat()
        manifest = RangeManifest(ref.group, ref.first, ref.last, complete, ordered, filtered, extra)
        # round trip through the strict parser: never store a manifest a reader rejects
        RangeManifest.loads(manifest.dumps())
        if complete and not chunks_cover(ref.first, ref.last, ordered):
            raise ValueError(f"range {ref.group}/{ref.name}: chunks do not cover the range")
        atomic_put(self.fs, ref.manifest_path(self.root), manifest.dumps())
        return manifest

    def stored_chunks(self, ref: RangeRef) -> list[ChunkEntry]:
        """Whole chunk files already in a range's folder (to resume a capture after a crash)."""
        folder = ref.path(self.root)
        if not self.fs.exists(folder):
            return []
        entries = []
        for info in self.fs.ls(folder, detail=True):
            name = info["name"].rsplit("/", 1)[-1]
            if is_temporary(name) or name == MANIFEST_NAME or ".xover." not in name:
                continue
            span = parse_span(name.split(".xover.", 1)[0])
            if span is None:
                continue
            payload = self.fs.cat_file(info["name"])
            inflated = inflate(payload)
            if not inflated.complete:
                continue  # a damaged file is fetched again, not trusted
            n_lines = inflated.data.count(b"\n")
            entries.append(ChunkEntry(name, span[0], span[1], n_lines, len(payload)))
        return sorted(entries, key=lambda c: c.first)
