"""The table of every generated article before numbering: one row a segment (or noise post).

Rows are added an upload at a time as numpy arrays and string lists; `freeze` joins
them once. A *source* is what all rows of one upload (or noise burst) share: the From
field, the Date style and clock skew, and the groups it was posted to.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

YENC_LINE = 128  # encoded bytes per yEnc line
HEADER_BYTES = 420  # Path, Newsgroups, Date, ... beside Subject, From and Message-ID


@dataclass(frozen=True)
class Source:
    sender: str
    date_style: int
    skew: int
    groups: tuple[int, ...]  # group indexes in the order of the Newsgroups header


@dataclass
class Segments:
    times: np.ndarray  # float64 true posting time
    source: np.ndarray  # int32 index into sources
    nbytes: np.ndarray  # int64 :bytes
    nlines: np.ndarray  # int64 :lines
    subjects: list[str]
    message_ids: list[str]
    sources: list[Source]

    def __len__(self) -> int:
        return len(self.times)


@dataclass
class SegmentTable:
    """Rows as they are posted; `:bytes`/`:lines` of yEnc rows are worked out in `freeze`,
    once for all rows, from each row's raw data size and header overhead."""

    sources: list[Source] = field(default_factory=list)
    subjects: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    _times: list[np.ndarray] = field(default_factory=list)
    _first: list[np.ndarray] = field(default_factory=list)  # raw data bytes, or :bytes
    _text_lines: list[np.ndarray] = field(default_factory=list)  # :lines of plain articles
    _overhead: list[np.ndarray] = field(default_factory=list)  # header bytes of yEnc rows
    # per block of rows: (rows, source, header overhead of every row or -1: in _overhead)
    _blocks: list[tuple[int, int, int, bool]] = field(default_factory=list)
    rows: int = 0

    def add_source(self, source: Source) -> int:
        self.sources.append(source)
        return len(self.sources) - 1

    def add(
        self,
        source: int,
        times: np.ndarray,
        subjects: list[str],
        message_ids: list[str],
        raw: np.ndarray,
        overhead: int | np.ndarray,
    ) -> None:
        """yEnc segments carrying `raw` data bytes each, `overhead` header bytes (each)."""
        if isinstance(overhead, np.ndarray):
            if len(overhead) != len(raw):
                raise ValueError("segment columns differ in length")
            self._overhead.append(overhead)
            overhead = -1
        self._add(source, times, subjects, message_ids, raw, overhead, True)

    def add_text(
        self,
        source: int,
        times: np.ndarray,
        subjects: list[str],
        message_ids: list[str],
        nbytes: np.ndarray,
        nlines: np.ndarray,
    ) -> None:
        """Plain articles whose sizes are known as they are."""
        if len(nlines) != len(times):
            raise ValueError("segment columns differ in length")
        self._add(source, times, subjects, message_ids, nbytes, 0, False)
        self._text_lines.append(nlines)

    def _add(
        self,
        source: int,
        times: np.ndarray,
        subjects: list[str],
        message_ids: list[str],
        first: np.ndarray,
        overhead: int,
        yenc: bool,
    ) -> None:
        n = len(times)
        if not (len(subjects) == len(message_ids) == len(first) == n):
            raise ValueError("segment columns differ in length")
        self._times.append(times)
        self._first.append(first)
        self._blocks.append((n, source, overhead, yenc))
        self.subjects.extend(subjects)
        self.message_ids.extend(message_ids)
        self.rows += n

    def posted_at(self) -> dict[str, float]:
        """Each row's posting time by message-id."""
        if not self._times:
            return {}
        return dict(zip(self.message_ids, np.concatenate(self._times).tolist(), strict=True))

    def freeze(self, rng: np.random.Generator) -> Segments:
        if not self._blocks:
            empty = np.zeros(0, dtype=np.int64)
            return Segments(empty.astype(np.float64), empty, empty, empty, [], [], self.sources)
        counts = np.array([b[0] for b in self._blocks], dtype=np.int64)
        source = np.repeat(np.array([b[1] for b in self._blocks], dtype=np.int32), counts)
        overhead = np.repeat(np.array([b[2] for b in self._blocks], dtype=np.int64), counts)
        if self._overhead:  # rows whose header sizes came one a row
            overhead[overhead == -1] = np.concatenate(self._overhead)
        yenc = np.repeat(np.array([b[3] for b in self._blocks], dtype=bool), counts)
        first = np.concatenate(self._first).astype(np.int64)
        nbytes, nlines = yenc_sizes(rng, first, overhead)
        nbytes[~yenc] = first[~yenc]
        if self._text_lines:
            nlines[~yenc] = np.concatenate(self._text_lines)
        return Segments(
            times=np.concatenate(self._times).astype(np.float64),
            source=source,
            nbytes=nbytes,
            nlines=nlines,
            subjects=self.subjects,
            message_ids=self.message_ids,
            sources=self.sources,
        )


def yenc_sizes(
    rng: np.random.Generator, raw: np.ndarray, overhead: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`:bytes` and `:lines` of yEnc articles carrying `raw` data bytes each.

    yEnc escapes 1-2.5 % of bytes and ends each 128-byte line with CRLF; three
    `=ybegin/=ypart/=yend` lines and the headers (`overhead`) come on top.
    """
    encoded = (raw * (1.0 + rng.uniform(0.012, 0.025, size=len(raw)))).astype(np.int64)
    lines = -(-encoded // YENC_LINE)
    nbytes = encoded + 2 * lines + 190 + overhead
    return nbytes, lines + 3
