"""What the window hands out, and the albums finished releases may gather into.

OpenFile and OpenRelease are a release as the output reads it: made by the window when
a release is handed out (finished, or provisional at a range's end). Albums gather
finished single-file releases whose names differ only by digit runs (a poster's photos,
an audiobook's chapters), one album a poster and name template, closed once no member
can still come; the window and its reference share this code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from kernels import subject as sk
from pipelines.index.batch import SOURCE_ALBUM, SegmentBatch
from pipelines.index.rules import Rules

_DIGITS = re.compile(rb"\d+")
# what an album gathers: media and documents, never archive volumes, par2 or sidecars
ALBUM_CLASSES = frozenset({sk.IMAGE, sk.VIDEO, sk.AUDIO, sk.EBOOK, sk.TEXT, sk.OTHER})


@dataclass(slots=True)
class Piece:
    """Segments of a file not handed out yet: rows start:stop of one batch, or only
    `rows` of them when some repeated parts the file had (most pieces are a whole run:
    no array is made for those)."""

    batch: SegmentBatch
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
class Albums:
    """The open albums of a group, by (poster, name template)."""

    open: dict[tuple[int, bytes], Album] = field(default_factory=dict)

    def file(self, due: list[OpenRelease], horizon: int, rules: Rules) -> list[OpenRelease]:
        """Finished releases in: singles that may be album members go into their album,
        the rest come out, with the albums that closed."""
        out: list[OpenRelease] = []
        for rel in due:
            key = album_key(rel)
            if key is None:
                out.append(rel)
            else:
                self._into(key, rel, out, rules)
        out.extend(self.close(horizon, rules))
        return out

    def _into(
        self, key: tuple[int, bytes], rel: OpenRelease, out: list[OpenRelease], rules: Rules
    ) -> None:
        album = self.open.get(key)
        if album is not None and (
            rel.first_date > album.release.last_date + rules.upload_gap
            or album.members >= rules.album_max_files
        ):
            out.append(_album_release(self.open.pop(key)))
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
            self.open[key] = album
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

    def close(self, horizon: int, rules: Rules) -> list[OpenRelease]:
        # no member can still come: one would be posted within the gap of the last
        gap = rules.upload_gap
        closing = [k for k, a in self.open.items() if a.release.last_date + gap < horizon]
        return [_album_release(self.open.pop(k)) for k in closing]

    def carry(self) -> list[OpenRelease]:
        """The open albums, to hand out provisional at a range's end."""
        return [_album_release(a) for a in self.open.values()]


def _album_release(album: Album) -> OpenRelease:
    # a lone member stays the release it was
    return album.lone if album.members == 1 else album.release


def album_key(rel: OpenRelease) -> tuple[int, bytes] | None:
    """(poster, the name with its digit runs as #) for a single-file release of media or
    documents; None for what joins no album."""
    if len(rel.files) != 1 or rel.source == SOURCE_ALBUM:
        return None
    f = rel.files[0]
    if f.random_name or f.ext_class not in ALBUM_CLASSES or not has_digits(f.name):
        return None
    return rel.poster_key, _DIGITS.sub(b"#", f.name)


def has_digits(name: bytes) -> bool:
    return _DIGITS.search(name) is not None


def keep_copies(rel: OpenRelease) -> None:
    """Copy a release's unwritten segments out of the range's batches, into `carried`:
    a single that may still join an album keeps them, since an album's finished version
    holds all its members' segments under its own key."""
    for f in rel.files:
        for p in f.pieces:
            rows = p.indices()
            f.carried.append(Piece(p.batch.take(rows), 0, len(rows)))


def is_batch_total(
    batch_uploads: dict[tuple[int, int], set[int]], rules: Rules, rel: OpenRelease, finished: bool
) -> bool:
    """Is the release's counter total a batch number rather than its file count?

    Yes when several uploads of its poster share the total, or when a finished
    release holds a sliver of the files it announced (one file of `[n/68067]`).
    """
    return batch_total_of(
        batch_uploads, rules, rel.poster_key, rel.file_total, len(rel.files), finished
    )


def batch_total_of(
    batch_uploads: dict[tuple[int, int], set[int]],
    rules: Rules,
    poster_key: int,
    total: int,
    files: int,
    finished: bool,
) -> bool:
    """`is_batch_total` of a release given by its poster, counter total and file count."""
    if total < rules.batch_total_min:
        return False
    uploads = batch_uploads.get((poster_key, total))
    if uploads is not None and len(uploads) >= rules.batch_uploads_min:
        return True
    return finished and files * 20 < total


def count_batch(
    batch_uploads: dict[tuple[int, int], set[int]],
    rules: Rules,
    poster_key: int,
    total: int,
    ident: int,
) -> None:
    """A new release announced `total` files: one more upload of its poster with it."""
    uploads = batch_uploads.setdefault((poster_key, total), set())
    if len(uploads) < rules.batch_uploads_min:
        uploads.add(ident)
