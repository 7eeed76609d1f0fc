"""The real mix (`--mix real`): today's shapes plus the subject shapes of `shapes`.

`RealPlanner` is the classic `Planner` with a second kind of upload: a `Shape` drawn by
kind of group, then by weight, its files built fresh (`FILE_SETS`) and its subject
decorations (`{site}`, `{user}`, `{tag}`, ...) drawn per upload. A share of the uploads
(`CLASSIC_SHARE`) keep today's features and shapes, deck included. Every shape is
posted once first (the real deck), so a modest corpus holds every family. Posters work
in sessions here too: the next upload of a session keeps the poster and the shape
(several albums in a row under one counter style, the hard case).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pipelines.generate import names, posters
from pipelines.generate import words as w
from pipelines.generate.features import DECK, RATES, draw_features
from pipelines.generate.files import (
    ReleaseSpec,
    _ordered,
    archive_release,
    draw_size,
    ebook_release,
    music_release,
    par2_set,
)
from pipelines.generate.plan import Planner
from pipelines.generate.rand import ALNUM, Tokens
from pipelines.generate.shapes import BY_KIND, CLASSIC_SHARE, GROUP_KINDS, SHAPES, Shape
from pipelines.generate.special import CAMERAS
from pipelines.generate.tools import Poster

GAME_GROUPS = ("RELOADED", "SKIDROW", "CODEX", "PLAZA", "FLT", "PROTOCOL", "iMARS", "DUPLEX")
GAME_TAILS = ("", "", "XBOX360", "PS3", "MULTi6", "READNFO", "PROPER", "Update.v1.2")
SITE_WORDS = ("news", "usenet", "nzb", "post", "binaries", "upload", "share", "place")
TAGS = ("EnJoY", "RexTyler", "Bolly", "ghost", "Hatsuyuki", "DMZ", "SiNNERS", "Dready")
COMIC_TAGS = ("digital", "Digital-Empire", "Zone-Empire", "webrip", "c2c")

# what a file set keeps from one upload to the next in a corpus (the shows of a poster)
Memo = dict[str, Any]
FileSet = Callable[[random.Random, Tokens, int, Memo], tuple[ReleaseSpec, dict[str, str]]]


def _words(rng: random.Random, lo: int, hi: int) -> list[str]:
    return rng.sample(w.TITLE_WORDS, rng.randint(lo, hi))


def _author(rng: random.Random) -> str:
    return f"{rng.choice(w.FIRST_NAMES)} {rng.choice(w.LAST_NAMES)}"


def _tracks(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    """An album of `01 - Title.mp3` tracks, folder.jpg and the album's par2 set."""
    band, album = names.artist(rng), names.album_title(rng)
    name = f"{band} - {album} ({rng.randint(1965, 2024)})"
    ext = "flac" if rng.random() < 0.35 else "mp3"
    n = rng.randint(6, 19)
    total = draw_size(rng, "music", cap)
    tracks = posters.track_files(rng, band, ext, n, total)
    cover = [(rng.choice(("folder.jpg", "cover.jpg", "Front.jpg")), rng.randint(60_000, 900_000))]
    par2 = par2_set(rng, name, total) if rng.random() < 0.7 else []
    extras = [(f"{name}.m3u", rng.randint(300, 1_200))] if rng.random() < 0.3 else []
    files = _ordered(rng, [tracks, cover, extras, par2[:1], par2[1:]])
    return ReleaseSpec("music", "music", name, files, shared_stem=False), {}


def _tagged_tracks(
    rng: random.Random, tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    """As `_tracks`, the name ending in its format (`Artist - Album (2013) MP3`)."""
    spec, extra = _tracks(rng, tokens, cap, _memo)
    tag = "FLAC" if spec.files and any(f.endswith(".flac") for f, _ in spec.files) else "MP3"
    old = spec.name
    spec.name = f"{old} {tag}"
    spec.files = [(f.replace(old, spec.name), size) for f, size in spec.files]
    return spec, extra


def _scene_tracks(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    return music_release(rng, cap), {}


def _books(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    spec = ebook_release(rng, cap)
    if rng.random() < 0.3:  # one archive of the book
        spec.files = [(f"{spec.name} [epub].rar", spec.files[0][1])]
    return spec, {}


def _book_req(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    title, author = " ".join(_words(rng, 2, 4)), _author(rng)
    name = f"{title} - {author}"
    files = [(f"{name}.epub", draw_size(rng, "ebook", cap))]
    return ReleaseSpec("ebook", "book", name, files), {"title": title, "author": author}


def _isbn_books(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    """A book posted under its ISBN as the file name; the title only in the subject."""
    name = " ".join(_words(rng, 3, 6))
    isbn = str(rng.randint(10**9, 10**10 - 1))
    size = draw_size(rng, "ebook", cap)
    par2 = par2_set(rng, isbn, size)
    files = [(f"{isbn}.epub", size), *par2[: rng.randint(1, len(par2))]]
    return ReleaseSpec("ebook", "book", name, files, shared_stem=False), {}


def _collection_books(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    author = _author(rng)
    name = rng.choice(
        (
            f"{author.split()[-1]} works",
            f"{author} sampler",
            f"{' '.join(_words(rng, 1, 2))} Set {rng.randint(1, 99)}",
        )
    )
    ext = rng.choice(("epub", "mobi"))
    files = [
        (f"{author} - {' '.join(_words(rng, 1, 3))}.{ext}", draw_size(rng, "ebook", cap))
        for _ in range(rng.randint(3, 30))
    ]
    return ReleaseSpec("ebook", "book", name, list(dict.fromkeys(files)), shared_stem=False), {}


def _comics(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    series = " ".join(_words(rng, 1, 3))
    year = rng.randint(1970, 2024)
    name = f"{series} ({year})"
    first = rng.randint(1, 80)
    tag = rng.choice(COMIC_TAGS)
    ext = rng.choice(("cbr", "cbz"))
    files = [
        (f"{series} {n:03d} ({year}) ({tag}).{ext}", rng.randint(8, 90) * 1_000_000 // 3)
        for n in range(first, first + rng.randint(3, 24))
    ]
    files = [(f, min(s, cap)) for f, s in files]
    par2 = par2_set(rng, name, sum(s for _, s in files)) if rng.random() < 0.5 else []
    spec = ReleaseSpec("ebook", "book", name, _ordered(rng, [par2[:1], files, par2[1:]]), False)
    return spec, {}


def _game_name(rng: random.Random) -> str:
    title = ".".join(_words(rng, 1, 3))
    tail = rng.choice(GAME_TAILS)
    return f"{title}{'.' + tail if tail else ''}-{rng.choice(GAME_GROUPS)}"


def _game_scene(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    kind = rng.choice(("rar_old", "rar_old", "rar_parts"))
    return archive_release(rng, kind, cap, _game_name(rng), "software"), {}


def _archive(kind: str, name: Callable[[random.Random], str], category: str) -> FileSet:
    """The file set of one archive release of `kind` under a fresh name drawn by `name`."""

    def build(
        rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
    ) -> tuple[ReleaseSpec, dict[str, str]]:
        return archive_release(rng, kind, cap, name(rng), category), {}

    return build


def _movie_obfuscated(
    rng: random.Random, tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    """Random file stems; the name only in the subject's first, unrelated quoted file."""
    name = names.movie(rng)
    stem = tokens.one(ALNUM, rng.randint(10, 16))
    spec = archive_release(rng, "rar_parts", cap, stem, "movie")
    return ReleaseSpec("rar_parts", "movie", name, spec.files, shared_stem=False), {}


FANSUBS = ("SubsPlease", "HorribleSubs", "Erai-raws", "Commie", "FFF", "DeadFish", "Doki", "CBM")


def fansub_title(rng: random.Random) -> str:
    """TV titles in the shapes of real ones (../shared/data/names): fansub brackets,
    spaced words, `1x05 - Episode`, absolute numbers."""
    title = " ".join(_words(rng, 1, 3))
    ep = rng.randint(1, 60)
    res = rng.choice(("720p", "1080p", "480p"))
    crc = f"{rng.getrandbits(32):08X}"
    shape = rng.randrange(5)
    if shape == 0:
        return f"[{rng.choice(FANSUBS)}] {title} - {ep:02d} [{res}]"
    if shape == 1:
        return f"[{rng.choice(FANSUBS)}] {title} - {ep:02d} ({res}) [{crc}]"
    if shape == 2:
        return f"{title} - {rng.randint(1, 9)}x{ep:02d} - {' '.join(_words(rng, 1, 2))}"
    if shape == 3:
        return f"{title} S{rng.randint(1, 9):02d}E{ep:02d} {res} WEB-DL AAC2.0 H.264"
    return f"{title} ({rng.randint(1990, 2024)}) - {ep:03d} - {' '.join(_words(rng, 1, 3))}"


def _fansub(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    name = fansub_title(rng)
    total = draw_size(rng, "video", cap)
    par2 = par2_set(rng, name, total)
    files = _ordered(rng, [par2[:1], [(f"{name}.mkv", total)], par2[1:]])
    return ReleaseSpec("video", "tv", name, files), {}


def _short_named(
    rng: random.Random, _tokens: Tokens, cap: int, memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    """A poster's nickname for a show (`SNL`, `Bill Maher`) before each of its episodes and
    variants (720p and 1080p of one episode), from a few shows a corpus: one subject name
    for several releases; the release name is the file stem."""
    shows: list[tuple[str, str]] = memo.setdefault("shows", [])
    if len(shows) < 4 or rng.random() < 0.2:
        words = _words(rng, 2, 4)
        short = "".join(x[0] for x in words).upper() if rng.random() < 0.4 else " ".join(words[:2])
        shows.append((".".join(words), short))
    show, short = rng.choice(shows[-4:])
    res, src, codec = rng.choice(w.TV_SOURCES)
    ep = f"S{rng.randint(1, 40):02d}E{rng.randint(1, 24):02d}"
    name = f"{show}.{ep}.{res}.{src}.{codec}-{rng.choice(w.GROUPS_TV)}"
    spec = archive_release(rng, "rar_parts", cap, name, "tv")
    return spec, {"short": short}


def _images(
    rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo
) -> tuple[ReleaseSpec, dict[str, str]]:
    """A picture set under one counter: camera names with gaps, sometimes a par2 set."""
    prefix, digits, ext = rng.choice(CAMERAS)
    name = f"{' '.join(_words(rng, 1, 3))} {rng.randint(2005, 2024)}"
    number = rng.randint(1, 10 ** (digits - 1))
    files = []
    for _ in range(rng.randint(5, 80)):
        number += 1 if rng.random() < 0.9 else rng.randint(2, 5)
        files.append((f"{prefix}{number:0{digits}d}{ext}", rng.randint(120_000, 2_500_000)))
    par2 = par2_set(rng, name, sum(s for _, s in files)) if rng.random() < 0.3 else []
    return ReleaseSpec("images", "pictures", name, files + par2, shared_stem=False), {}


FILE_SETS: dict[str, FileSet] = {
    "tracks": _tracks,
    "tagged_tracks": _tagged_tracks,
    "scene_tracks": _scene_tracks,
    "books": _books,
    "book_req": _book_req,
    "isbn_books": _isbn_books,
    "collection_books": _collection_books,
    "comics": _comics,
    "game_scene": _game_scene,
    "movie": _archive("rar_parts", names.movie, "movie"),
    "movie_scene": _archive("rar_old", names.movie, "movie"),
    "movie_obfuscated": _movie_obfuscated,
    "tv": _archive("rar_parts", names.tv_episode, "tv"),
    "tv_scene": _archive("rar_old", names.tv_episode, "tv"),
    "fansub": _fansub,
    "short_named": _short_named,
    "images": _images,
    **posters.FILE_SETS,
}


def decorations(rng: random.Random, shape: Shape) -> dict[str, str]:
    """The uploader and site text of one upload: fresh words, never a real subject's."""
    site = f"{rng.choice(w.TITLE_WORDS)}-{rng.choice(SITE_WORDS)}".lower()
    if rng.random() < 0.5:
        site = site.capitalize()
    user = f"{rng.choice(w.FIRST_NAMES)}{rng.randint(1, 99) if rng.random() < 0.6 else ''}"
    j = rng.randint(1, 9)
    return {
        "site": site,
        "user": user,
        "tag": rng.choice(TAGS),
        "j": f"{j:02d}",
        "m": f"{j + rng.randint(0, 20):02d}",
    }


@dataclass
class ShapeSession:
    poster: Poster
    sender: str
    shape: int
    next_start: float


class RealPlanner(Planner):
    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.kind_names = list(GROUP_KINDS)
        self.kind_weights = list(GROUP_KINDS.values())
        self.shape_sessions: dict[int, ShapeSession] = {}
        self.memo: Memo = {}

    def _deck(self) -> list[dict[str, Any]]:
        # every shape once, then today's deck: each family and each classic feature shows
        real = [{"shape": i} for i in range(len(SHAPES))]
        return [*real, *DECK]

    def _draw(self) -> dict[str, Any]:
        features = draw_features(self.rng)
        if self.rng.random() < CLASSIC_SHARE:
            return features
        kind = self.rng.choices(self.kind_names, self.kind_weights)[0]
        shapes = BY_KIND[kind]
        shape = self.rng.choices(shapes, [s.weight for s in shapes])[0]
        return {
            "shape": SHAPES.index(shape),
            **{k: v for k, v in features.items() if k in ("crosspost", "long")},
            **{k: v for k, v in features.items() if k.startswith("missing")},
        }

    def _upload(self, home: int, features: dict[str, Any]) -> None:
        if "shape" not in features:
            super()._upload(home, features)
            return
        before = self.budget[home]
        self._shaped(home, features)
        if self.budget[home] == before:
            self.budget[home] -= 1

    def _shape_session(self, home: int, index: int) -> ShapeSession:
        session = self.shape_sessions.get(home)
        if (
            session is not None
            and session.shape == index
            and self.rng.random() < RATES["session"] * 2
            and session.next_start < self.start + self.span * 0.9
        ):
            if session.poster.fresh_sender:
                session.sender = self._sender(session.poster)
            return session
        poster = self._poster()
        session = ShapeSession(
            poster, self._sender(poster), index, self.start + self.rng.uniform(0, self.span)
        )
        self.shape_sessions[home] = session
        return session

    def _shaped(self, home: int, features: dict[str, Any]) -> None:
        index = int(features["shape"])
        shape = SHAPES[index]
        # a session keeps its shape: the next upload of this home may continue it
        running = self.shape_sessions.get(home)
        if running is not None and self.rng.random() < RATES["session"]:
            index, shape = running.shape, SHAPES[running.shape]
        groups = self._groups(home, bool(features.get("crosspost")))
        spec, extra = self._shape_spec(shape)
        session = self._shape_session(home, index)
        start, duration = self._timing(session, spec, features, session.next_start)
        extra.update(decorations(self.rng, shape))
        extra["post"] = str(self.rng.randint(10_000, 299_999))
        extra["board"] = self._board(home)
        plan = self._plan(
            session,
            shape.style,
            groups,
            start,
            duration,
            features,
            connections=self._connections(),
            extra=extra,
        )
        upload = self._post(session, spec, plan)
        upload.family = shape.family
        upload.group_kind = shape.group_kind
        named = shape.style.has_name or spec.shared_stem or posters.NAMED_BY_SIDECARS in extra
        upload.expected_name = spec.name if named else None

    def _shape_spec(self, shape: Shape) -> tuple[ReleaseSpec, dict[str, str]]:
        build = FILE_SETS[shape.files]
        for _ in range(50):
            spec, extra = build(self.rng, self.tokens, self.cap_bytes, self.memo)
            if spec.name not in self.used_names:
                self.used_names.add(spec.name)
                return spec, extra
        raise RuntimeError(f"could not draw a fresh name for shape {shape.name}")
