"""One chunk's kept segments, in file-run order: what the window consumes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

SOURCE_SUBJECT = 1  # the release identity came from the subject
SOURCE_STEM = 2  # the subject held only the file part: the file name's stem is the identity
SOURCE_ALBUM = 3
SOURCE_NAMES = {SOURCE_SUBJECT: "subject", SOURCE_STEM: "stem", SOURCE_ALBUM: "album"}


@dataclass
class SegmentBatch:
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
    # per run, the texts of its first segment (the representative line)
    run_subject: list[bytes]
    run_poster: list[bytes]
    run_name: list[bytes]
    run_xref: list[bytes]

    @property
    def runs(self) -> int:
        return len(self.bounds) - 1

    def take(self, rows: np.ndarray) -> SegmentBatch:
        """A batch of just these rows, as one run (carried segments of one file)."""
        return SegmentBatch(
            bounds=np.array([0, len(rows)], np.int64),
            file_key=self.file_key[rows],
            ident=self.ident[rows],
            poster_key=self.poster_key[rows],
            source=self.source[rows],
            number=self.number[rows],
            part_total=self.part_total[rows],
            file_index=self.file_index[rows],
            file_total=self.file_total[rows],
            ext_class=self.ext_class[rows],
            volume=self.volume[rows],
            random_name=self.random_name[rows],
            nbytes=self.nbytes[rows],
            article=self.article[rows],
            date=self.date[rows],
            message_id=self.message_id.take(pa.array(rows)),
            run_subject=[],
            run_poster=[],
            run_name=[],
            run_xref=[],
        )
