"""A parsed chunk: one corpus chunk's kept segments, in file-run order, as the window
consumes them (`parse.parse_chunk` makes it). Not the poster's batch counter
(`batch_counters`), which is a counter total, not a chunk."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

SOURCE_SUBJECT = 1  # the release identity came from the subject
SOURCE_STEM = 2  # the subject held only the file part: the file name's stem is the identity
SOURCE_ALBUM = 3
SOURCE_NAMES = {SOURCE_SUBJECT: "subject", SOURCE_STEM: "stem", SOURCE_ALBUM: "album"}


@dataclass
class ParsedChunk:
    """Rows are segments (duplicates removed); run r is rows bounds[r]:bounds[r + 1]."""

    bounds: np.ndarray  # int64 (runs + 1)
    file_key: np.ndarray  # uint64, poster mixed in
    ident: np.ndarray  # uint64 release identity, poster mixed in
    poster_key: np.ndarray  # uint64
    source: np.ndarray  # uint8
    number: np.ndarray  # int32 part number
    part_total: np.ndarray  # int32
    file_index: np.ndarray  # int32 (-1 none)
    file_total: np.ndarray  # int32 (-1 none)
    ext_class: np.ndarray  # uint8
    volume: np.ndarray  # int32
    random_name: np.ndarray  # bool
    nbytes: np.ndarray  # int64
    article: np.ndarray  # int64
    date: np.ndarray  # int64 effective date
    message_id: pa.Array  # binary, without angle brackets
    # per run: its first and last effective date, first and last article (from the kernel)
    run_first_date: np.ndarray
    run_last_date: np.ndarray
    run_first_article: np.ndarray
    run_last_article: np.ndarray
    # per run, the texts of its first segment (the representative line)
    run_subject: list[bytes]
    run_poster: list[bytes]
    run_name: list[bytes]
    run_xref: list[bytes]

    @property
    def runs(self) -> int:
        return len(self.bounds) - 1

    def slim(self) -> None:
        """Drop what the window has read: only the columns a written file needs stay."""
        empty = np.zeros(0, np.int64)
        for name in PER_SEGMENT:
            if name not in _KEPT:
                setattr(self, name, empty)

    def take(self, rows: np.ndarray) -> ParsedChunk:
        """A slim chunk of just these rows (carried segments of one file)."""
        return ParsedChunk.of_segments(
            self.number[rows], self.nbytes[rows], self.message_id.take(pa.array(rows))
        )

    @staticmethod
    def of_segments(number: np.ndarray, nbytes: np.ndarray, message_id: pa.Array) -> ParsedChunk:
        """A slim chunk of one run holding just these segments (a file's carried copies)."""
        empty = np.zeros(0, np.int64)
        columns = {name: empty for name in PER_SEGMENT}
        columns.update(number=number, nbytes=nbytes)
        return ParsedChunk(
            bounds=np.array([0, len(number)], np.int64),
            message_id=message_id,
            run_first_date=empty,
            run_last_date=empty,
            run_first_article=empty,
            run_last_article=empty,
            run_subject=[],
            run_poster=[],
            run_name=[],
            run_xref=[],
            **columns,
        )


PER_SEGMENT = (
    "file_key",
    "ident",
    "poster_key",
    "source",
    "number",
    "part_total",
    "file_index",
    "file_total",
    "ext_class",
    "volume",
    "random_name",
    "nbytes",
    "article",
    "date",
)
# the per-run spans, named as the file runs' (`kernels.grouping.FileRuns`) without `run_`
RUN_SPANS = ("first_date", "last_date", "first_article", "last_article")
_KEPT = ("number", "nbytes")  # with message_id: what release_files is built from
