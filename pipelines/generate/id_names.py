"""Upload names of films and episodes, as uploaders write them, from titles of the id
tables: what the id matching (`pipelines.ids`) is measured on.

Each name keeps its truth (the IMDb number of the film or series it names): `bench-ids`
counts the names given the right ids, wrong ids and none. The styles are the common ones
of scene and p2p uploads (dotted, spaced with dashes, `1x02`, a year in brackets, lower
case, underscores, a fansub's `[Group]`), with a source, a height and a group.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

QUALITIES = ("720p.HDTV.x264", "1080p.WEB-DL.DDP5.1.H.264", "2160p.BluRay.x265", "480p.DVDRip.XviD",
             "1080p.BluRay.x264", "720p.WEBRip.x264")  # fmt: skip
GROUPS = ("GRP", "NTb", "KiNGS", "FLUX", "SPARKS", "DIMENSION")


@dataclass(frozen=True)
class UploadName:
    name: str
    imdb: int  # the film's or the series' IMDb number: the right id
    kind: str  # movie or series


def film_name(title: str, year: int, rng: random.Random) -> str:
    quality, group = rng.choice(QUALITIES), rng.choice(GROUPS)
    style = rng.randrange(5)
    if style == 0:
        return f"{title.replace(' ', '.')}.{year}.{quality}-{group}"
    if style == 1:
        return f"{title} ({year}) [{quality.replace('.', ' ')}]"
    if style == 2:
        return f"{title.replace(' ', '_')}_{year}_{quality.replace('.', '_')}-{group}"
    if style == 3:
        return f"{title.lower().replace(' ', '.')}.{year}.{quality.lower()}-{group.lower()}"
    return f"{title} {year} {quality.replace('.', ' ')} {group}"


def episode_name(title: str, season: int, episode: int, rng: random.Random) -> str:
    quality, group = rng.choice(QUALITIES), rng.choice(GROUPS)
    style = rng.randrange(5)
    if style == 0:
        return f"{title.replace(' ', '.')}.S{season:02d}E{episode:02d}.{quality}-{group}"
    if style == 1:
        return f"{title} - {season}x{episode:02d} - Episode Title [{quality.replace('.', ' ')}]"
    if style == 2:
        return f"{title} - S{season:02d}E{episode:02d} - Episode Title"
    if style == 3:
        return f"{title.lower().replace(' ', '.')}.s{season:02d}e{episode:02d}.{quality.lower()}"
    return f"{title.replace(' ', '.')}.S{season:02d}.{quality}-{group}"  # a season pack


def upload_names(titles: list[tuple[int, str, str, int]], seed: int = 0) -> list[UploadName]:
    """One upload name per (imdb number, kind, title, year) of the tables."""
    rng = random.Random(seed)
    out = []
    for imdb, kind, title, year in titles:
        if kind == "movie":
            out.append(UploadName(film_name(title, year, rng), imdb, kind))
        else:
            name = episode_name(title, rng.randint(1, 9), rng.randint(1, 24), rng)
            out.append(UploadName(name, imdb, kind))
    return out
