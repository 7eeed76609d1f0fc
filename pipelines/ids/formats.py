"""Which of the id sources a file is, by its first line.

- IMDb's title tables (tab-separated, `\\N` for nothing, gzipped or not): `title.basics`
  (`tconst titleType primaryTitle originalTitle isAdult startYear endYear runtimeMinutes
  genres`), `title.episode` (`tconst parentTconst seasonNumber episodeNumber`) and
  `title.akas` (`titleId ordering title region language types attributes isOriginalTitle`);
- TVmaze's show records, as its API's `/shows?page=N` returns them: a JSON array of shows
  per page (one page a line, or one show a line), each with `id`, `name`, `premiered`
  and `externals` (`tvrage`, `thetvdb`, `imdb`);
- a CSV of TMDB ids: `tmdb_id,kind,imdb_id,title,year` (kind `movie` or `tv`; imdb_id,
  title and year may be empty).
"""

from __future__ import annotations

import gzip
from pathlib import Path

IMDB_BASICS = "imdb_basics"
IMDB_EPISODES = "imdb_episodes"
IMDB_AKAS = "imdb_akas"
TVMAZE = "tvmaze"
TMDB = "tmdb"
FORMATS = (IMDB_BASICS, IMDB_EPISODES, IMDB_AKAS, TVMAZE, TMDB)

_HEADERS = {
    "tconst\ttitleType\tprimaryTitle": IMDB_BASICS,
    "tconst\tparentTconst\tseasonNumber\tepisodeNumber": IMDB_EPISODES,
    "titleId\tordering\ttitle": IMDB_AKAS,
    "tmdb_id,": TMDB,
}


class UnknownFormat(ValueError):
    """A file that is none of the sources."""


def first_line(path: Path) -> str:
    opener = gzip.open if _gzipped(path) else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.readline(65536).lstrip("\ufeff").rstrip("\r\n")


def _gzipped(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def format_of(path: Path) -> str:
    """The source format of the file, or UnknownFormat."""
    line = first_line(path)
    for header, name in _HEADERS.items():
        if line.startswith(header):
            return name
    if line.startswith(("{", "[")):
        return TVMAZE
    raise UnknownFormat(f"{path}: not an IMDb, TVmaze or TMDB id file (first line {line[:60]!r})")


def compression_of(path: Path) -> str:
    return "gzip" if _gzipped(path) else "none"
