"""Upload names of films and episodes, as uploaders write them, from titles of the id
tables: what the id matching (`pipelines.ids`) is measured on.

Each name keeps its truth (the IMDb number of the film or series it names): `bench-ids`
counts the names given the right ids, wrong ids and none. The styles are the common ones
of scene and p2p uploads (dotted, spaced with dashes, `1x02`, a year in brackets, lower
case, underscores, a fansub's `[Group]`), with a source, a height and a group.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

import pyarrow as pa

from pipelines.generate.files import ReleaseSpec

QUALITIES = ("720p.HDTV.x264", "1080p.WEB-DL.DDP5.1.H.264", "2160p.BluRay.x265", "480p.DVDRip.XviD",
             "1080p.BluRay.x264", "720p.WEBRip.x264")  # fmt: skip
GROUPS = ("GRP", "NTb", "KiNGS", "FLUX", "SPARKS", "DIMENSION")


@dataclass(frozen=True)
class UploadName:
    name: str
    imdb: int  # the film's or the series' IMDb number: the right id
    kind: str  # movie or series


# the styles, each a format of the title's forms (`dotted`, `spaced`...), the quality's
# and the group's; an episode's `se` is `S01E02`, `x` is `1x02`
FILM_STYLES = (
    "{dotted}.{year}.{quality}-{group}",
    "{title} ({year}) [{spaced}]",
    "{underscored}_{year}_{quality_underscored}-{group}",
    "{lower}.{year}.{quality_lower}-{group_lower}",
    "{title} {year} {spaced} {group}",
)
EPISODE_STYLES = (
    "{dotted}.{se}.{quality}-{group}",
    "{title} - {x} - Episode Title [{spaced}]",
    "{title} - {se} - Episode Title",
    "{lower}.{se_lower}.{quality_lower}",
    "{dotted}.{season}.{quality}-{group}",  # a season pack
)


def _forms(title: str, rng: random.Random) -> dict[str, str]:
    quality, group = rng.choice(QUALITIES), rng.choice(GROUPS)
    return {
        "title": title, "dotted": title.replace(" ", "."), "underscored": title.replace(" ", "_"),
        "lower": title.lower().replace(" ", "."), "quality": quality,
        "spaced": quality.replace(".", " "), "quality_underscored": quality.replace(".", "_"),
        "quality_lower": quality.lower(), "group": group, "group_lower": group.lower(),
    }  # fmt: skip


def film_name(title: str, year: int, rng: random.Random, styles: tuple[int, ...] = ()) -> str:
    forms = _forms(title, rng)
    style = rng.choice(styles) if styles else rng.randrange(len(FILM_STYLES))
    return FILM_STYLES[style].format(year=year, **forms)


def episode_name(
    title: str, season: int, episode: int, rng: random.Random, styles: tuple[int, ...] = ()
) -> str:
    forms = _forms(title, rng)
    style = rng.choice(styles) if styles else rng.randrange(len(EPISODE_STYLES))
    se = f"S{season:02d}E{episode:02d}"
    return EPISODE_STYLES[style].format(
        se=se, se_lower=se.lower(), x=f"{season}x{episode:02d}", season=f"S{season:02d}", **forms
    )


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


# the styles a file stem takes (no brackets or parentheses: a subject's `[1/10]` and
# `(1/50)` counters stay its own): dotted, underscored, lower case; `Title - S01E02 - ...`
_FILM_STEMS = (0, 2, 3)
_EPISODE_STEMS = (0, 2, 3)


class IdUploads:
    """TV and film uploads named after the films and series of IMDb's title table in
    `folder` (`GenerateConfig.id_titles`): each video upload of the corpus renamed so,
    its files too, and its truth (the IMDb number) kept for `truth/ids.parquet`."""

    def __init__(self, folder: str, seed: int) -> None:
        self.rng = random.Random(f"id-titles-{seed}")
        self.films: list[tuple[int, str, int]] = []
        self.series: list[tuple[int, str, int]] = []
        for imdb, kind, title, year in read_titles(folder):
            (self.films if kind == "movie" else self.series).append((imdb, title, year))
        self.truth: dict[str, tuple[int, str]] = {}

    def rename(self, spec: ReleaseSpec, used: set[str]) -> ReleaseSpec:
        """The spec under a name of the tables (a film's for a film, an episode's for TV),
        its files renamed with it; as it was when its files do not share its stem."""
        pool = self.films if spec.category == "movie" else self.series
        if spec.category not in ("movie", "tv") or not spec.shared_stem or not pool:
            return spec
        if not all(f.startswith(spec.name) for f, _ in spec.files):
            return spec
        for _ in range(20):
            imdb, title, year = self.rng.choice(pool)
            if spec.category == "movie":
                name = film_name(title, year, self.rng, _FILM_STEMS)
            else:
                s, e = self.rng.randint(1, 9), self.rng.randint(1, 24)
                name = episode_name(title, s, e, self.rng, _EPISODE_STEMS)
            if name not in used:
                used.add(name)
                self.truth[name] = (imdb, "movie" if spec.category == "movie" else "series")
                files = [(name + f[len(spec.name) :], size) for f, size in spec.files]
                return replace(spec, name=name, files=files)
        return spec

    def truth_table(self, posted: set[str]) -> pa.Table:
        """The truth of the names drawn that an upload of the corpus carries (a drawn
        release may not fit its group's budget and is never posted)."""
        names = sorted(n for n in self.truth if n in posted)
        return pa.table(
            {
                "name": pa.array(names, pa.string()),
                "imdb": pa.array([self.truth[n][0] for n in names], pa.int64()),
                "kind": pa.array([self.truth[n][1] for n in names], pa.string()),
            }
        )


def read_titles(folder: str) -> list[tuple[int, str, str, int]]:
    """(imdb number, movie or series, title, year) of the films and series of the
    folder's `title.basics.tsv` (or `.tsv.gz`), in file order."""
    base = Path(folder)
    path = base / "title.basics.tsv"
    opener: Callable[..., IO[str]] = open
    if not path.exists():
        path, opener = base / "title.basics.tsv.gz", gzip.open
    out = []
    with opener(path, "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 6 or not cols[5].isdigit():
                continue
            kind = {"movie": "movie", "tvSeries": "series", "tvMiniSeries": "series"}.get(cols[1])
            if kind:
                out.append((int(cols[0][2:]), kind, cols[2], int(cols[5])))
    return out
