"""Albums: finished single-file releases whose names differ only by digit runs.

A poster's photos, an audiobook's chapters: one album a poster and name template,
closed once no member can still come, or when a member shows it is of another set (two
sets of one poster, one camera: `DSC_0996.JPG` of two uploads): a file counter numbers a
set's files once against one total, and a subject that names its release names it for
every member, digits aside. The window and its reference share this code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kernels import subject as sk
from pipelines import naming
from pipelines.index.parsed_chunk import SOURCE_ALBUM, SOURCE_SUBJECT
from pipelines.index.release import OpenFile, OpenRelease, Piece
from pipelines.index.rules import Rules

_DIGITS = re.compile(rb"\d+")
# what an album gathers: media and documents, never archive volumes, par2 or sidecars
ALBUM_CLASSES = frozenset({sk.IMAGE, sk.VIDEO, sk.AUDIO, sk.EBOOK, sk.TEXT, sk.OTHER})


@dataclass(slots=True, eq=False)
class Album:
    release: OpenRelease  # the album's own release, members' files in it
    lone: OpenRelease  # the first member as the release it was, should it stay alone
    members: int = 0
    # the counter indexes its members hold and the total they announce (i of N, N >= 2),
    # made from the release's files (a loaded snapshot's album has them)
    indexes: set[int] = field(default_factory=set)
    total: int = -1

    def __post_init__(self) -> None:
        for f in self.release.files:
            self.count(f)

    def count(self, f: OpenFile) -> None:
        if counted(f):
            self.indexes.add(f.file_index)
            self.total = f.file_total

    def same_set(self, rel: OpenRelease) -> bool:
        """May this single be of the album's set? Not when its counter numbers a file
        the album holds or announces another total; not when its subject, or the first
        member's, names a release and the two differ but for digits."""
        f = rel.files[0]
        if counted(f) and (
            f.file_index in self.indexes or (self.total >= 2 and f.file_total != self.total)
        ):
            return False
        first = self.lone
        if SOURCE_SUBJECT in (rel.source, first.source):
            return _DIGITS.sub(b"#", f.subject) == _DIGITS.sub(b"#", first.files[0].subject)
        return True


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
            or not album.same_set(rel)
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
        for f in rel.files:
            album.count(f)
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


def counted(f: OpenFile) -> bool:
    """A counter i of N (N >= 2): one set numbers each of its files once. [1/1] does not
    count, posters number every single post so."""
    return f.file_index >= 0 and f.file_total >= 2


def has_digits(name: bytes) -> bool:
    return _DIGITS.search(name) is not None


def keep_copies(rel: OpenRelease) -> None:
    """Copy a release's unwritten segments out of the range's chunks, into `carried`:
    a single that may still join an album keeps them, since an album's finished version
    holds all its members' segments under its own key."""
    for f in rel.files:
        for p in f.pieces:
            rows = p.indices()
            f.carried.append(Piece(p.chunk.take(rows), 0, len(rows)))


# --- an album of track titles, named by its sidecars -------------------------------------

# the files that carry an album's name when its tracks carry only their titles (an m3u is
# of the text class, a cue of the disc class: SIDECAR_HINTS holds every class one can be)
_SIDECAR_CLASSES = frozenset({sk.PAR2_INDEX, sk.PAR2_VOL, sk.SFV, sk.NFO})
_SIDECAR_ENDS = (b".m3u", b".m3u8", b".cue")
SIDECAR_HINTS = (*_SIDECAR_CLASSES, sk.TEXT, sk.DISC)
MEDIA_CLASSES = (sk.AUDIO, sk.IMAGE, sk.VIDEO, sk.EBOOK)


def sidecar_name(names: list[bytes], classes: list[int]) -> str | None:
    """The name an upload of media files of several stems takes from its sidecars (par2
    set, sfv, nfo, m3u, cue: `[1/19] - "01 - River.flac"` beside `"Dark Golden - Lost
    Quest (1995) FLAC.vol00+01.par2"`): the stem most of them share, when it is no media
    file's and not random; None when the media files share one stem (it is the name) or
    no sidecar names them."""
    # most releases have under two media files or no sidecar: no stem made for them
    if sum(cls in MEDIA_CLASSES for cls in classes) < 2:
        return None
    media: set[str] = set()
    sidecars: dict[str, int] = {}
    for raw, cls in zip(names, classes, strict=True):
        if cls in _SIDECAR_CLASSES or raw.lower().endswith(_SIDECAR_ENDS):
            stem = naming.stem(naming.to_text(raw))
            if stem:
                sidecars[stem] = sidecars.get(stem, 0) + 1
        elif cls in MEDIA_CLASSES:
            media.add(naming.stem(naming.to_text(raw)).lower())
    if len(media) < 2 or not sidecars:
        return None
    best = max(sidecars, key=lambda s: sidecars[s])  # (the first of equals: posting order)
    if best.lower() in media or naming.random_token(best.strip(" -_.")):
        return None
    return best
