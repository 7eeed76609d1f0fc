"""Release names in the conventions of real posts: scene TV, movies, music, books, software."""

from __future__ import annotations

import random

from pipelines.generate import words as w


def _title(rng: random.Random, n_min: int = 1, n_max: int = 3) -> list[str]:
    return rng.sample(w.TITLE_WORDS, rng.randint(n_min, n_max))


def tv_episode(rng: random.Random) -> str:
    show = ".".join(_title(rng, 2, 3))
    suffix = rng.choice(w.TV_SUFFIXES)
    if suffix:
        show = f"{show}.{suffix}"
    res, src, codec = rng.choice(w.TV_SOURCES)
    ep = f"S{rng.randint(1, 12):02d}E{rng.randint(1, 24):02d}"
    if rng.random() < 0.3:
        ep = f"{ep}.{'.'.join(_title(rng, 1, 2))}"
    return f"{show}.{ep}.{res}.{src}.{codec}-{rng.choice(w.GROUPS_TV)}"


def tv_season(rng: random.Random) -> str:
    show = ".".join(_title(rng, 2, 3))
    res, src, codec = rng.choice(w.TV_SOURCES + w.MOVIE_SOURCES[:2])
    extra = rng.choice(("", "COMPLETE.", "MULTi."))
    return f"{show}.S{rng.randint(1, 9):02d}.{extra}{res}.{src}.{codec}-{rng.choice(w.GROUPS_TV)}"


def movie(rng: random.Random) -> str:
    title = ".".join(_title(rng, 1, 3))
    res, src, codec = rng.choice(w.MOVIE_SOURCES)
    lang = rng.choice(w.LANGUAGES)
    return (
        f"{title}.{rng.randint(1975, 2024)}.{lang}{res}.{src}.{codec}-{rng.choice(w.GROUPS_MOVIE)}"
    )


def artist(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return f"{rng.choice(w.FIRST_NAMES)} {rng.choice(w.LAST_NAMES)}"
    return " ".join(rng.sample(w.BAND_WORDS, 2))


def album_title(rng: random.Random) -> str:
    return " ".join(word.capitalize() for word in rng.sample(w.TRACK_WORDS, rng.randint(1, 3)))


def music(rng: random.Random, band: str, album: str, year: int, flac: bool) -> str:
    grp = rng.choice(w.GROUPS_MUSIC)
    if rng.random() < 0.6:
        src = "FLAC" if flac else rng.choice(("WEB", "CD", "2CD", "Vinyl"))
        return f"{band.replace(' ', '_')}-{album.replace(' ', '_')}-{src}-{year}-{grp}"
    return f"{band} - {album} ({year}) [{'FLAC' if flac else 'MP3 320'}]"


def track_file(rng: random.Random, n: int, band: str, scene: bool, ext: str) -> str:
    title = " ".join(rng.sample(w.TRACK_WORDS, rng.randint(1, 4)))
    if scene:
        return f"{n:02d}-{band.lower().replace(' ', '_')}-{title.replace(' ', '_')}.{ext}"
    return f"{n:02d} - {title.title()}.{ext}"


def book(rng: random.Random) -> str:
    author = f"{rng.choice(w.FIRST_NAMES)} {rng.choice(w.LAST_NAMES)}"
    title = " ".join(_title(rng, 2, 4))
    style = rng.random()
    if style < 0.4:
        return f"{author} - {title}"
    if style < 0.7:
        return f"{author} - [{' '.join(_title(rng, 1, 2))} {rng.randint(1, 12):02d}] - {title}"
    return f"{author} - {title} ({rng.randint(1990, 2024)})"


def software(rng: random.Random) -> str:
    prog = rng.choice(w.SOFTWARE).replace(" ", ".")
    ver = f"v{rng.randint(1, 24)}.{rng.randint(0, 9)}.{rng.randint(0, 99)}"
    arch = rng.choice(("x64", "x86", "x64.Incl.Keygen", "MacOSX", "Multilingual", "Linux"))
    return f"{prog}.{ver}.{arch}-{rng.choice(w.GROUPS_SOFT)}"


def foreign_title(rng: random.Random) -> str:
    """A title in its own script: Japanese or Cyrillic, with scene-style tags."""
    title = rng.choice(w.JAPANESE_TITLES + w.CYRILLIC_TITLES)
    tags = rng.choice(("1080p WEB", "BDRip 720p", "DVDRip", "(2005) BDRip 1080p"))
    return f"{title} {tags} {rng.randint(100, 999)}"


def latin1_title(rng: random.Random) -> str:
    title = rng.choice(w.LATIN1_SAFE)
    return f"{title} {rng.randint(1990, 2023)} German DVDRip XviD {rng.randint(10, 99)}"


def scene_abbrev(rng: random.Random, name: str) -> str:
    """The short lowercase file stem scene groups use (`grp-title-720p`)."""
    head = name.split("-")[-1].lower()[:6]
    body = "".join(p[:4] for p in name.lower().split(".")[:3])
    return f"{head}-{body}{rng.randint(1, 99)}"
