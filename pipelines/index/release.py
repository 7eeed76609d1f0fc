"""The release model: a release and its files as the output reads them.

OpenFile and OpenRelease are made by the window when a release is handed out (finished,
or provisional at a range's end); a Piece is a run of a file's segments in a parsed
chunk. The window's tables hold the same facts as rows (`kernels.window`); these objects
exist only for what albums gather and carry, and for the tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipelines.index.parsed_chunk import ParsedChunk


@dataclass(slots=True)
class Piece:
    """Segments of a file not handed out yet: rows start:stop of one chunk, or only
    `rows` of them when some repeated parts the file had (most pieces are a whole run:
    no array is made for those)."""

    chunk: ParsedChunk
    start: int
    stop: int
    rows: np.ndarray | None = None

    def indices(self) -> np.ndarray:
        return np.arange(self.start, self.stop) if self.rows is None else self.rows


@dataclass(slots=True, eq=False)
class OpenFile:
    key: int
    subject: bytes
    poster: bytes
    name: bytes
    xref: bytes
    file_index: int
    file_total: int
    part_total: int
    ext_class: int
    volume: int
    random_name: bool
    first_date: int
    last_date: int
    first_article: int
    last_article: int
    nbytes: int = 0
    count: int = 0  # distinct parts seen
    pieces: list[Piece] = field(default_factory=list)
    # segments written already under the file's own release, kept for an album to come
    carried: list[Piece] = field(default_factory=list)
    first_part_id: bytes = b""  # the message-id of part 1 (a probe target)
    last_part: int = -1
    last_part_id: bytes = b""  # the message-id of the highest part (7z sets' probe)

    @property
    def segments(self) -> int:
        return self.count

    @property
    def complete(self) -> bool:
        return self.part_total > 0 and self.count >= self.part_total


# The fields a release's row of the window tables and of a snapshot both hold, under these names.
ROW_FIELDS = (
    "ident", "poster_key", "source", "first_date", "last_date", "first_article",
    "last_article", "file_total", "written",
)  # fmt: skip


@dataclass(slots=True, eq=False)
class OpenRelease:
    ident: int
    poster_key: int
    source: int
    first_date: int
    last_date: int
    first_article: int
    last_article: int
    files: list[OpenFile] = field(default_factory=list)
    keys: set[int] = field(default_factory=set)  # the file keys it holds
    idents: set[int] = field(default_factory=set)  # the identities its files came under
    sibling: tuple[int, int, bytes] | None = None
    file_total: int = -1
    written: bool = False  # a provisional version went out already
    members: list[bytes] = field(default_factory=list)  # album member names
    album_template: bytes = b""
    first_member: OpenRelease | None = None  # an album's key is its first member's
    absorbed: list[OpenRelease] = field(default_factory=list)  # album members written before

    @classmethod
    def from_row(cls, columns: Mapping[str, Sequence[Any]], j: int, **rest: Any) -> OpenRelease:
        """Release j of columns holding the ROW_FIELDS (one list a field); rest: its others."""
        return cls(**{name: columns[name][j] for name in ROW_FIELDS}, **rest)

    @property
    def segments(self) -> int:
        return sum(f.segments for f in self.files)

    @property
    def nbytes(self) -> int:
        return sum(f.nbytes for f in self.files)
