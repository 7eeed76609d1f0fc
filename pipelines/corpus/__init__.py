"""The stored XOVER corpus: layout, manifests, the atomic writer and the reader."""

from pipelines.corpus.layout import RangeRef, chunk_file_name, parse_span
from pipelines.corpus.manifest import ChunkEntry, ManifestError, RangeManifest

__all__ = [
    "ChunkEntry",
    "ManifestError",
    "RangeManifest",
    "RangeRef",
    "chunk_file_name",
    "parse_span",
]
