"""Plain-Python reference of `kernels.window`: the carried window over objects.

The window as it was before its hot path became a kernel, rule for rule: a run joins
the open file of its key unless it was posted more than the upload gap after that file
(and repeats its parts, or the file was whole); a new file joins the latest open
release of its identity (or, failing that, of its sibling key) posted within the gap
of it or interleaved with it, and, for a file of a counter i of N (N >= 2), announcing no
other total and holding no file of its index; else starts one.
`tests/test_window_kernel.py` runs this and `pipelines.index.window.Window` side by side
and compares what they hand out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels.frontier import FrontierState
from pipelines.index.albums import Albums, album_key, counted, keep_copies
from pipelines.index.batch_counters import count_batch, is_batch_total
from pipelines.index.parsed_chunk import ParsedChunk
from pipelines.index.release import OpenFile, OpenRelease, Piece
from pipelines.index.rules import Rules
from pipelines.index.siblings import sibling_kinds
from tests.reference.siblings import sibling_key


@dataclass(slots=True, eq=False)
class _File(OpenFile):
    """An open file as the reference keeps it: its parts seen, and its release."""

    seen: np.ndarray = field(default_factory=lambda: np.zeros(0, np.bool_))  # by part number
    release: OpenRelease | None = None


def _fresh(f: _File, numbers: np.ndarray) -> np.ndarray | None:
    """Which of these part numbers the file has not seen yet (and mark them seen);
    None when all are new."""
    top = int(numbers[-1]) + 1  # part numbers ascend within a run
    if f.count == 0:
        f.seen = np.zeros(max(top, f.part_total + 1), np.bool_)
        f.seen[numbers] = True
        f.count = len(numbers)
        return None
    if top > len(f.seen):
        grown = np.zeros(max(top, f.part_total + 1, 2 * len(f.seen)), np.bool_)
        grown[: len(f.seen)] = f.seen
        f.seen = grown
    new = ~f.seen[numbers]
    f.seen[numbers] = True
    f.count += int(np.count_nonzero(new))
    return new


@dataclass
class ReferenceWindow:
    rules: Rules
    frontier: FrontierState = field(default_factory=FrontierState)
    files: dict[int, _File] = field(default_factory=dict)  # the current file of each key
    current: dict[int, list[OpenRelease]] = field(default_factory=dict)  # open, per identity
    siblings: dict[tuple[int, int, bytes], list[OpenRelease]] = field(default_factory=dict)
    # per open release: the sibling keys it can be found by (keyed by the object, not its
    # id(): ids change when the window is pickled between ranges, and a finished release
    # stayed findable by its sibling keys)
    sibling_keys: dict[OpenRelease, list[tuple[int, int, bytes]]] = field(default_factory=dict)
    open: list[OpenRelease] = field(default_factory=list)
    albums: Albums = field(default_factory=Albums)
    batch_uploads: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    position: int = 0

    def add(self, chunk: ParsedChunk) -> None:
        for r in range(chunk.runs):
            a, b = int(chunk.bounds[r]), int(chunk.bounds[r + 1])
            key = int(chunk.file_key[a])
            first_date = int(chunk.run_first_date[r])
            f = self.files.get(key)
            if f is None or self._is_repost(f, chunk.number[a:b], first_date):
                f = self._new_file(chunk, r)
                self._place(f, chunk, r)
            self._extend(f, chunk, r)
        if len(chunk.article):
            self.position = max(self.position, int(chunk.article.max()))

    def _is_repost(self, f: _File, numbers: np.ndarray, first_date: int) -> bool:
        if first_date <= f.last_date + self.rules.upload_gap:
            return False
        return f.complete or bool(f.seen[numbers[numbers < len(f.seen)]].any())

    def _new_file(self, chunk: ParsedChunk, r: int) -> _File:
        a = int(chunk.bounds[r])
        f = _File(
            key=int(chunk.file_key[a]),
            subject=chunk.run_subject[r],
            poster=chunk.run_poster[r],
            name=chunk.run_name[r],
            xref=chunk.run_xref[r],
            file_index=int(chunk.file_index[a]),
            file_total=int(chunk.file_total[a]),
            part_total=int(chunk.part_total[a]),
            ext_class=int(chunk.ext_class[a]),
            volume=int(chunk.volume[a]),
            random_name=bool(chunk.random_name[a]),
            first_date=int(chunk.run_first_date[r]),
            last_date=int(chunk.run_first_date[r]),
            first_article=int(chunk.run_first_article[r]),
            last_article=int(chunk.run_first_article[r]),
        )
        self.files[f.key] = f
        return f

    def _place(self, f: _File, chunk: ParsedChunk, r: int) -> None:
        a = int(chunk.bounds[r])
        ident = int(chunk.ident[a])
        poster_key = int(chunk.poster_key[a])
        source = int(chunk.source[a])
        first_date, first_article = f.first_date, f.first_article
        rel = self._nearest(self.current.get(ident, ()), f, first_date, first_article)
        kind = int(sibling_kinds(np.array(source), np.array(f.file_total), self.rules))
        sibling = sibling_key(f.subject, f.file_index, f.file_total, poster_key, kind)
        if rel is None and sibling is not None:
            rel = self._nearest(self.siblings.get(sibling, ()), f, first_date, first_article)
        if rel is None:
            rel = OpenRelease(
                ident=ident,
                poster_key=poster_key,
                source=source,
                first_date=first_date,
                last_date=first_date,
                first_article=first_article,
                last_article=first_article,
            )
            self.open.append(rel)
            if f.file_total >= self.rules.batch_total_min:
                count_batch(self.batch_uploads, self.rules, poster_key, f.file_total, ident)
        # findable by the file's sibling key, also when it joined by identity
        if sibling is not None and rel not in self.siblings.get(sibling, ()):
            self.siblings.setdefault(sibling, []).append(rel)
            self.sibling_keys.setdefault(rel, []).append(sibling)
        if ident not in rel.idents:
            rel.idents.add(ident)
            self.current.setdefault(ident, []).append(rel)
        rel.files.append(f)
        rel.keys.add(f.key)
        f.release = rel
        if f.file_total > rel.file_total:
            rel.file_total = f.file_total

    def _nearest(
        self, candidates: Iterable[OpenRelease], f: OpenFile, first_date: int, first_article: int
    ) -> OpenRelease | None:
        gap = self.rules.upload_gap
        best = None
        for cand in candidates:
            near = cand.first_date - gap <= first_date <= cand.last_date + gap
            interleaved = first_article < cand.last_article
            fits = (near or interleaved) and f.key not in cand.keys
            if fits and counted(f):
                # one upload, one total, each index once
                other_total = cand.file_total >= 2 and cand.file_total != f.file_total
                again = any(counted(x) and x.file_index == f.file_index for x in cand.files)
                fits = not (other_total or again)
            if fits and (best is None or cand.last_article > best.last_article):
                best = cand
        return best

    def _extend(self, f: _File, chunk: ParsedChunk, r: int) -> None:
        a, b = int(chunk.bounds[r]), int(chunk.bounds[r + 1])
        fresh = _fresh(f, chunk.number[a:b])
        rows = np.arange(a, b) if fresh is None else np.arange(a, b)[fresh]
        if not len(rows):
            return
        f.nbytes += int(chunk.nbytes[rows].sum())
        f.pieces.append(Piece(chunk, a, b, None if fresh is None else rows))
        f.first_date = min(f.first_date, int(chunk.run_first_date[r]))
        f.last_date = max(f.last_date, int(chunk.run_last_date[r]))
        f.first_article = min(f.first_article, int(chunk.run_first_article[r]))
        f.last_article = max(f.last_article, int(chunk.run_last_article[r]))
        first_number, last_number = int(chunk.number[rows[0]]), int(chunk.number[rows[-1]])
        if first_number == 1:
            f.first_part_id = chunk.message_id[int(rows[0])].as_py()
        if last_number > f.last_part:
            f.last_part = last_number
            f.last_part_id = chunk.message_id[int(rows[-1])].as_py()
        rel = f.release
        if rel is not None:
            rel.first_date = min(rel.first_date, f.first_date)
            rel.last_date = max(rel.last_date, f.last_date)
            rel.first_article = min(rel.first_article, f.first_article)
            rel.last_article = max(rel.last_article, f.last_article)

    def finish_due(self) -> list[OpenRelease]:
        if self.frontier.frontier == 0:
            return []
        horizon = self.frontier.frontier - self.rules.window
        due = [r for r in self.open if r.last_date < horizon]
        if due:
            done = set(map(id, due))
            self.open = [r for r in self.open if id(r) not in done]
            for rel in due:
                self._forget(rel)
        return self.albums.file(due, horizon, self.rules)

    def _forget(self, rel: OpenRelease) -> None:
        for ident in rel.idents:
            _drop(self.current, ident, rel)
        for sibling in self.sibling_keys.pop(rel, ()):
            _drop(self.siblings, sibling, rel)
        for f in rel.files:
            if self.files.get(f.key) is f:
                del self.files[f.key]

    def is_batch_total(self, rel: OpenRelease, finished: bool) -> bool:
        return is_batch_total(self.batch_uploads, self.rules, rel, finished)

    def retire(self, rel: OpenRelease) -> None:
        """A finished release was handed out: its files let go of it (file and release
        point at each other; left to the cyclic collector, they piled up)."""
        for f in rel.files:
            if isinstance(f, _File):
                f.release = None

    def carry(self) -> list[OpenRelease]:
        for rel in self.open:
            if album_key(rel) is not None:
                keep_copies(rel)
        return [*self.open, *self.albums.carry()]


def _drop(index: dict[Any, list[OpenRelease]], key: Any, rel: OpenRelease) -> None:
    peers = index.get(key)
    if peers is not None and rel in peers:
        peers.remove(rel)
        if not peers:
            del index[key]
