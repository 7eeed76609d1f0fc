"""The carried window: a group's open files and releases, in article order.

Segments come in one chunk at a time (a SegmentBatch of file runs). A run joins the
open file of its key unless it was posted more than the upload gap after that file; a
new file joins the open release of its identity under the same test, else starts one.
A release is finished once the frontier is `window` seconds past its last part; at the
end of a range the releases still open are handed out provisional and stay open here,
so the group's next range finishes the same release (same key). What was handed out is
not kept: across ranges the window holds counters and names, and segment lists only for
single files that may still join an album.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels import subject as sk
from kernels.frontier import FrontierState
from pipelines.index.batch import SOURCE_ALBUM, SOURCE_SUBJECT, SegmentBatch
from pipelines.index.rules import Rules

_DIGITS = re.compile(rb"\d+")
# what an album gathers: media and documents, never archive volumes, par2 or sidecars
ALBUM_CLASSES = frozenset({sk.IMAGE, sk.VIDEO, sk.AUDIO, sk.EBOOK, sk.TEXT, sk.OTHER})


@dataclass(slots=True)
class Piece:
    """Segments of a file not handed out yet: rows of one batch."""

    batch: SegmentBatch
    rows: np.ndarray


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
    seen: np.ndarray = field(default_factory=lambda: np.zeros(0, np.bool_))  # by part number
    count: int = 0  # distinct parts seen
    pieces: list[Piece] = field(default_factory=list)
    # segments written already under the file's own release, kept for an album to come
    carried: list[Piece] = field(default_factory=list)
    first_part_id: bytes = b""  # the message-id of part 1 (a probe target)
    last_part: int = -1
    last_part_id: bytes = b""  # the message-id of the highest part (7z sets' probe)
    release: OpenRelease | None = None

    @property
    def segments(self) -> int:
        return self.count

    @property
    def complete(self) -> bool:
        return self.part_total > 0 and self.count >= self.part_total

    def fresh(self, numbers: np.ndarray) -> np.ndarray | None:
        """Which of these part numbers the file has not seen yet (and mark them seen);
        None when all are new."""
        top = int(numbers[-1]) + 1  # part numbers ascend within a run
        if self.count == 0:
            # a new file: a run's part numbers are distinct (its duplicates are gone)
            self.seen = np.zeros(max(top, self.part_total + 1), np.bool_)
            self.seen[numbers] = True
            self.count = len(numbers)
            return None
        if top > len(self.seen):
            grown = np.zeros(max(top, self.part_total + 1, 2 * len(self.seen)), np.bool_)
            grown[: len(self.seen)] = self.seen
            self.seen = grown
        new = ~self.seen[numbers]
        self.seen[numbers] = True
        self.count += int(np.count_nonzero(new))
        return new


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

    @property
    def segments(self) -> int:
        return sum(f.segments for f in self.files)

    @property
    def nbytes(self) -> int:
        return sum(f.nbytes for f in self.files)


@dataclass(slots=True, eq=False)
class Album:
    release: OpenRelease  # the album's own release, members' files in it
    lone: OpenRelease  # the first member as the release it was, should it stay alone
    members: int = 0


@dataclass
class Window:
    rules: Rules
    frontier: FrontierState = field(default_factory=FrontierState)
    files: dict[int, OpenFile] = field(default_factory=dict)  # the current file of each key
    current: dict[int, list[OpenRelease]] = field(default_factory=dict)  # open, per identity
    siblings: dict[tuple[int, int, bytes], list[OpenRelease]] = field(default_factory=dict)
    open: list[OpenRelease] = field(default_factory=list)
    albums: dict[tuple[int, bytes], Album] = field(default_factory=dict)
    batch_uploads: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    position: int = 0  # the last article read

    # -- reading ---------------------------------------------------------------------

    def add(self, batch: SegmentBatch) -> None:
        runs = _Runs(batch)
        files = self.files
        for r in range(batch.runs):
            first_date = runs.first_date[r]
            key = runs.key[r]
            f = files.get(key)
            if f is None or self._is_repost(
                f, batch.number[runs.bounds[r] : runs.bounds[r + 1]], first_date
            ):
                f = self._new_file(runs, r)
                self._place(f, runs, r)
            self._extend(f, batch, runs, r)
        if len(batch.article):
            self.position = max(self.position, int(batch.article.max()))

    def _is_repost(self, f: OpenFile, numbers: np.ndarray, first_date: int) -> bool:
        """A later run of an open file's key is the same file unless it is posted again.

        Posted again: past the upload gap, and repeating parts the file has or coming
        after it was whole. A few segments with a skewed clock stay in their file.
        """
        if first_date <= f.last_date + self.rules.upload_gap:
            return False
        seen = f.seen
        return f.complete or bool(seen[numbers[numbers < len(seen)]].any())

    def _new_file(self, runs: _Runs, r: int) -> OpenFile:
        f = OpenFile(
            key=runs.key[r],
            subject=runs.subject[r],
            poster=runs.poster[r],
            name=runs.name[r],
            xref=runs.xref[r],
            file_index=runs.file_index[r],
            file_total=runs.file_total[r],
            part_total=runs.part_total[r],
            ext_class=runs.ext_class[r],
            volume=runs.volume[r],
            random_name=runs.random_name[r],
            first_date=runs.first_date[r],
            last_date=runs.first_date[r],
            first_article=runs.first_article[r],
            last_article=runs.first_article[r],
        )
        self.files[f.key] = f
        return f

    def _place(self, f: OpenFile, runs: _Runs, r: int) -> None:
        """Put a new file into the open release of its identity, or start one.

        It joins a release posted within the upload gap of it, or one it interleaves with
        (it starts before that release's last article: posted at the same time, whatever
        its Date says). Of several, the latest; a repost of a file the release already
        has starts a release of its own.
        """
        ident = runs.ident[r]
        first_date = runs.first_date[r]
        first_article = runs.first_article[r]
        poster_key = runs.poster_key[r]
        source = runs.source[r]
        rel = self._nearest(self.current.get(ident, ()), f, first_date, first_article)
        sibling = _sibling_key(f, poster_key, source)
        if rel is None and sibling is not None:
            # same poster, same subject up to the file counter, same total: the files of
            # one upload whose unquoted names leaked into the identity
            rel = self._nearest(self.siblings.get(sibling, ()), f, first_date, first_article)
            if rel is not None and any(x.file_index == f.file_index for x in rel.files):
                rel = None
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
            if sibling is not None:
                self.siblings.setdefault(sibling, []).append(rel)
                rel.sibling = sibling
            if f.file_total >= self.rules.batch_total_min:
                self._count_batch(rel, f.file_total)
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
        """The latest open release the file fits: within the upload gap of it, or
        interleaved with it (started before its last article), and not holding its key."""
        gap = self.rules.upload_gap
        best = None
        for cand in candidates:
            near = cand.first_date - gap <= first_date <= cand.last_date + gap
            interleaved = first_article < cand.last_article
            fits = (near or interleaved) and f.key not in cand.keys
            if fits and (best is None or cand.last_article > best.last_article):
                best = cand
        return best

    def _count_batch(self, rel: OpenRelease, total: int) -> None:
        uploads = self.batch_uploads.setdefault((rel.poster_key, total), set())
        if len(uploads) < self.rules.batch_uploads_min:
            uploads.add(rel.ident)

    def is_batch_total(self, rel: OpenRelease, finished: bool) -> bool:
        """Is the release's counter total a batch number rather than its file count?

        Yes when several uploads of its poster share the total, or when a finished
        release holds a sliver of the files it announced (one file of `[n/68067]`).
        """
        total = rel.file_total
        if total < self.rules.batch_total_min:
            return False
        uploads = self.batch_uploads.get((rel.poster_key, total))
        if uploads is not None and len(uploads) >= self.rules.batch_uploads_min:
            return True
        return finished and len(rel.files) * 20 < total

    def _extend(self, f: OpenFile, batch: SegmentBatch, runs: _Runs, r: int) -> None:
        a, b = runs.bounds[r], runs.bounds[r + 1]
        numbers = batch.number[a:b]
        fresh = f.fresh(numbers)
        if fresh is None:  # all new: the usual case, no masking
            rows = np.arange(a, b)
            f.nbytes += runs.nbytes[r]
            first_number, first_id = runs.first_number[r], runs.first_id[r]
            last_number, last_id = runs.last_number[r], runs.last_id[r]
        else:
            rows = np.arange(a, b)[fresh]
            if not len(rows):
                return
            f.nbytes += int(batch.nbytes[rows].sum())
            first_number, first_id = int(batch.number[rows[0]]), None
            last_number, last_id = int(batch.number[rows[-1]]), None
        f.pieces.append(Piece(batch, rows))
        f.first_date = min(f.first_date, runs.first_date[r])
        f.last_date = max(f.last_date, runs.last_date[r])
        f.first_article = min(f.first_article, runs.first_article[r])
        f.last_article = max(f.last_article, runs.last_article[r])
        if first_number == 1:
            f.first_part_id = first_id if first_id is not None else _id(batch, rows[0])
        if last_number > f.last_part:
            f.last_part = last_number
            f.last_part_id = last_id if last_id is not None else _id(batch, rows[-1])
        rel = f.release
        if rel is not None:
            rel.first_date = min(rel.first_date, f.first_date)
            rel.last_date = max(rel.last_date, f.last_date)
            rel.first_article = min(rel.first_article, f.first_article)
            rel.last_article = max(rel.last_article, f.last_article)

    # -- finishing -------------------------------------------------------------------

    def finish_due(self) -> list[OpenRelease]:
        """Releases the frontier has passed by the window: finished, handed out once.

        Single-file releases whose names differ only by digit runs go into their album
        instead and come out when the album closes.
        """
        if self.frontier.frontier == 0:
            return []
        horizon = self.frontier.frontier - self.rules.window
        due = [r for r in self.open if r.last_date < horizon]
        if not due:
            return self._close_albums(horizon)
        done = set(map(id, due))
        self.open = [r for r in self.open if id(r) not in done]
        out: list[OpenRelease] = []
        for rel in due:
            self._forget(rel)
            album_key = self._album_key(rel)
            if album_key is None:
                out.append(rel)
            else:
                self._into_album(album_key, rel, out)
        out.extend(self._close_albums(horizon))
        return out

    def retire(self, rel: OpenRelease) -> None:
        """A finished release was handed out: its files let go of it, so reference counting
        frees them (file and release point at each other; left to the cyclic collector,
        finished releases piled up between its rare full passes)."""
        for f in rel.files:
            f.release = None

    def _forget(self, rel: OpenRelease) -> None:
        for ident in rel.idents:
            _drop(self.current, ident, rel)
        if rel.sibling is not None:
            _drop(self.siblings, rel.sibling, rel)
        for f in rel.files:
            if self.files.get(f.key) is f:
                del self.files[f.key]

    def _album_key(self, rel: OpenRelease) -> tuple[int, bytes] | None:
        if len(rel.files) != 1 or rel.source == SOURCE_ALBUM:
            return None
        f = rel.files[0]
        if f.random_name or f.ext_class not in ALBUM_CLASSES or not _DIGITS.search(f.name):
            return None
        return rel.poster_key, _DIGITS.sub(b"#", f.name)

    def _into_album(self, key: tuple[int, bytes], rel: OpenRelease, out: list[OpenRelease]) -> None:
        album = self.albums.get(key)
        if album is not None and (
            rel.first_date > album.release.last_date + self.rules.upload_gap
            or album.members >= self.rules.album_max_files
        ):
            out.append(self._album_release(self.albums.pop(key)))
            album = None
        if album is None:
            shell = OpenRelease(
                ident=rel.ident,
                poster_key=rel.poster_key,
                source=SOURCE_ALBUM,
                first_date=rel.first_date,
                last_date=rel.last_date,
                first_article=rel.first_article,
                last_article=rel.last_article,
                album_template=key[1],
                first_member=rel,
            )
            album = Album(shell, rel)
            self.albums[key] = album
        a = album.release
        a.files.extend(rel.files)
        a.keys.update(rel.keys)
        a.members.append(rel.files[0].name)
        if rel.written and rel is not a.first_member:
            a.absorbed.append(rel)
        a.first_date = min(a.first_date, rel.first_date)
        a.last_date = max(a.last_date, rel.last_date)
        a.first_article = min(a.first_article, rel.first_article)
        a.last_article = max(a.last_article, rel.last_article)
        album.members += 1

    def _close_albums(self, horizon: int) -> list[OpenRelease]:
        # no member can still come: one would be posted within the gap of the last
        gap = self.rules.upload_gap
        closing = [k for k, a in self.albums.items() if a.release.last_date + gap < horizon]
        return [self._album_release(self.albums.pop(k)) for k in closing]

    @staticmethod
    def _album_release(album: Album) -> OpenRelease:
        # a lone member stays the release it was
        return album.lone if album.members == 1 else album.release

    def carry(self) -> list[OpenRelease]:
        """At a range's end: the open releases (and albums) to hand out provisional.

        Singles that may still join an album, and open albums, keep a copy of their
        segments: an album's finished version holds all its members' segments under its
        own key, whatever was written under the members' keys before.
        """
        for rel in self.open:
            if self._album_key(rel) is not None:
                _keep_copies(rel)
        albums = [self._album_release(a) for a in self.albums.values()]
        return [*self.open, *albums]


class _Runs:
    """A batch's per-run values as Python lists, read once a batch: numpy scalars and
    Arrow scalars cost more each than a list item."""

    def __init__(self, batch: SegmentBatch) -> None:
        starts = batch.bounds[:-1]
        lasts = batch.bounds[1:] - 1
        self.bounds: list[int] = batch.bounds.tolist()
        self.key: list[int] = batch.file_key[starts].tolist()
        self.ident: list[int] = batch.ident[starts].tolist()
        self.poster_key: list[int] = batch.poster_key[starts].tolist()
        self.source: list[int] = batch.source[starts].tolist()
        self.file_index: list[int] = batch.file_index[starts].tolist()
        self.file_total: list[int] = batch.file_total[starts].tolist()
        self.part_total: list[int] = batch.part_total[starts].tolist()
        self.ext_class: list[int] = batch.ext_class[starts].tolist()
        self.volume: list[int] = batch.volume[starts].tolist()
        self.random_name: list[bool] = batch.random_name[starts].tolist()
        self.first_date: list[int] = batch.run_first_date.tolist()
        self.last_date: list[int] = batch.run_last_date.tolist()
        self.first_article: list[int] = batch.run_first_article.tolist()
        self.last_article: list[int] = batch.run_last_article.tolist()
        self.first_number: list[int] = batch.number[starts].tolist()
        self.last_number: list[int] = batch.number[lasts].tolist()
        self.nbytes: list[int] = (
            np.add.reduceat(batch.nbytes, starts).tolist() if len(starts) else []
        )
        self.first_id: list[bytes] = batch.message_id.take(starts).to_pylist()
        self.last_id: list[bytes] = batch.message_id.take(lasts).to_pylist()
        self.subject = batch.run_subject
        self.poster = batch.run_poster
        self.name = batch.run_name
        self.xref = batch.run_xref


def _id(batch: SegmentBatch, row: int) -> bytes:
    message_id: bytes = batch.message_id[int(row)].as_py()
    return message_id


def _drop(index: dict[Any, list[OpenRelease]], key: Any, rel: OpenRelease) -> None:
    peers = index.get(key)
    if peers is not None and rel in peers:
        peers.remove(rel)
        if not peers:
            del index[key]


# the file counter of a subject: [i/N], (i/N), i/N, File i of N
_FILE_COUNTER = re.compile(rb"[\[(]?\s*\d+\s*/\s*\d+\s*[\])]?|file\s+\d+\s+of\s+\d+", re.I)


def _sibling_key(f: OpenFile, poster_key: int, source: int) -> tuple[int, int, bytes] | None:
    """(poster, file total, the subject before its file counter), for subject-named files."""
    if source != SOURCE_SUBJECT or f.file_total < 2 or f.file_index < 1:
        return None
    m = _FILE_COUNTER.search(f.subject)
    if m is None or m.start() < 8:
        return None
    return poster_key, f.file_total, f.subject[: m.start()].rstrip(b" -_[(").lower()


def _keep_copies(rel: OpenRelease) -> None:
    """Copy a release's unwritten segments out of the range's batches, into `carried`."""
    for f in rel.files:
        f.carried.extend(Piece(p.batch.take(p.rows), np.arange(len(p.rows))) for p in f.pieces)
