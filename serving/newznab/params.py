"""Newznab request parameters -> a validated SearchQuery, or a NewznabError.

Every value is checked before anything runs: a non-integer or negative limit/offset,
a malformed cat or size is error 201; a limit above the maximum is clamped (clients
ask for 1000 and expect the server's maximum). Repeated parameters: the first wins.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence

from serving import text
from serving.index.searcher import SearchQuery
from serving.newznab.errors import BAD_PARAMETER, MISSING, NewznabError
from serving.settings import Settings

# Default categories of the typed searches, used when the client gives none.
FUNCTION_CATEGORIES = {"tvsearch": (5000,), "movie": (2000,), "music": (3000,), "book": (7000,)}
_KEY = re.compile(r"^[0-9a-fA-F]{40}$")
_INT = re.compile(r"^\s*\d{1,18}\s*$")
_SEASON = re.compile(r"^[sS]?(\d{1,4})$")
_EPISODE = re.compile(r"^[eE]?(\d{1,4})$")
_DAILY_EPISODE = re.compile(r"^(\d{1,2})/(\d{1,2})$")


class Params:
    """The first value of each query parameter, names case-folded."""

    def __init__(self, items: Sequence[tuple[str, str]]) -> None:
        self._values: dict[str, str] = {}
        for name, value in items:
            self._values.setdefault(name.lower(), value)

    def get(self, name: str) -> str | None:
        value = self._values.get(name)
        return value if value is None else value.strip()

    def __contains__(self, name: str) -> bool:
        return name in self._values


def integer(params: Params, name: str, default: int | None = None) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    if not _INT.match(raw):
        raise NewznabError(
            BAD_PARAMETER, f"Incorrect parameter: {name} must be a whole number >= 0"
        )
    return int(raw)


def categories(params: Params) -> tuple[int, ...]:
    raw = params.get("cat")
    if not raw:
        return ()
    out = []
    for piece in raw.split(","):
        piece = piece.strip()
        if not piece:
            continue
        # ASCII digits only: str.isdigit() also accepts "¹" and other digits int() refuses.
        if not (piece.isascii() and piece.isdigit()) or len(piece) > 9:
            raise NewznabError(BAD_PARAMETER, "Incorrect parameter: cat must be ids like 5000,2040")
        out.append(int(piece))
    return tuple(dict.fromkeys(out))


def release_key(params: Params) -> bytes:
    raw = params.get("id") or params.get("guid")
    if not raw:
        raise NewznabError(MISSING, "Missing parameter: id")
    if not _KEY.match(raw):
        raise NewznabError(BAD_PARAMETER, "Incorrect parameter: id must be 40 hex digits")
    return bytes.fromhex(raw)


def _season_terms(params: Params) -> tuple[list[str], list[str]]:
    """(required terms, extra words) for season/ep: S03E02 tags, or a daily show's date."""
    season_raw, ep_raw = params.get("season"), params.get("ep")
    if not season_raw:
        if ep_raw:
            raise NewznabError(BAD_PARAMETER, "Incorrect parameter: ep needs a season")
        return [], []
    m = _SEASON.match(season_raw)
    if not m:
        raise NewznabError(BAD_PARAMETER, "Incorrect parameter: season must be like 3, S03 or 2017")
    season = int(m.group(1))
    if season >= 1900:  # a daily show: the year, month and day are words of the name
        extra = [str(season)]
        if ep_raw:
            d = _DAILY_EPISODE.match(ep_raw)
            if not d:
                raise NewznabError(BAD_PARAMETER, "Incorrect parameter: ep must be MM/DD")
            extra += [f"{int(d.group(1)):02d}", f"{int(d.group(2)):02d}"]
        return [], extra
    if not ep_raw:
        return [text.season_term(season)], []
    e = _EPISODE.match(ep_raw)
    if not e:
        raise NewznabError(BAD_PARAMETER, "Incorrect parameter: ep must be like 2 or E02")
    return [text.season_term(season, int(e.group(1)))], []


# The id parameters of tvsearch and movie, and the id kind each names (`pipelines/ids`)
ID_PARAMS = {"tvdbid": "tvdb", "tvmazeid": "tvmaze", "rid": "tvrage", "imdbid": "imdb",
             "tmdbid": "tmdb"}  # fmt: skip
FUNCTION_IDS = {"tvsearch": ("tvdbid", "tvmazeid", "rid", "imdbid", "tmdbid"),
                "movie": ("imdbid", "tmdbid")}  # fmt: skip
_IMDB = re.compile(r"^(?:tt)?(\d{1,10})$", re.I)


def ids(function: str, params: Params) -> tuple[tuple[str, int], ...]:
    """The ids a tvsearch or movie search names, (kind, number): any of them is the one
    show or film asked for. `imdbid` as `tt0944947`, `0944947` or `944947`; an id that is
    not a number is error 201."""
    out = []
    for name in FUNCTION_IDS.get(function, ()):
        raw = params.get(name)
        if not raw:
            continue
        if name == "imdbid":
            m = _IMDB.match(raw)
            if not m:
                raise NewznabError(
                    BAD_PARAMETER, "Incorrect parameter: imdbid must be like tt0944947"
                )
            value = int(m.group(1))
        else:
            value = integer(params, name) or 0
        out.append((ID_PARAMS[name], value))
    return tuple(out)


def search_query(function: str, params: Params, settings: Settings) -> SearchQuery:
    """The query a search function asks for (search, tvsearch, movie, music, book, rss)."""
    q = params.get("q") or ""
    extra_words: list[str] = []
    for name in ("artist", "album", "author", "title"):
        value = params.get(name)
        if value and function in ("music", "book"):
            extra_words.append(value)
    if sum(len(v) for v in (q, *extra_words)) > settings.max_query_chars:
        raise NewznabError(
            BAD_PARAMETER, f"Incorrect parameter: q over {settings.max_query_chars} characters"
        )
    terms: list[str] = []
    if function == "tvsearch":
        season_terms, daily = _season_terms(params)
        terms += season_terms
        extra_words += daily
    limit = integer(params, "limit", settings.default_limit)
    offset = integer(params, "offset", 0)
    maxage = integer(params, "maxage")
    minsize = integer(params, "minsize")
    maxsize = integer(params, "maxsize")
    cats = categories(params) or FUNCTION_CATEGORIES.get(function, ())
    poster = params.get("poster")
    if poster:
        terms.append(text.poster_term(poster))
    group = params.get("group")
    groups = tuple(g.strip() for g in group.split(",") if g.strip()) if group else ()
    words = text.words(" ".join([q, *extra_words]))
    assert limit is not None and offset is not None
    return SearchQuery(
        words=tuple(words[:32]) if len(words) <= 32 else _too_many(),
        terms=tuple(terms),
        categories=cats,
        groups=groups,
        ids=ids(function, params),
        min_posted=None if maxage is None else int(time.time()) - maxage * 86_400,
        min_bytes=minsize,
        max_bytes=maxsize,
        passworded=passworded(params),
        judged=show_judged(params),
        offset=min(offset, 10**9),
        limit=max(1, min(limit, settings.max_limit)),
    )


def passworded(params: Params) -> bool:
    """Whether passworded releases may be in the results: `password=0` (NZBHydra sends
    it) leaves them out; a release holding an inner archive (2) stays."""
    raw = params.get("password")
    if raw is None or raw == "":
        return True
    if raw not in ("0", "1"):
        raise NewznabError(BAD_PARAMETER, "Incorrect parameter: password must be 0 or 1")
    return raw == "1"


def show_judged(params: Params) -> bool:
    """Whether releases a verdict hides are listed too (with their verdicts): `judged=1`,
    ours, not Newznab's (docs/SERVING.md). Dead releases are never listed."""
    raw = params.get("judged")
    if raw is None or raw == "":
        return False
    if raw not in ("0", "1"):
        raise NewznabError(BAD_PARAMETER, "Incorrect parameter: judged must be 0 or 1")
    return raw == "1"


def _too_many() -> tuple[str, ...]:
    raise NewznabError(BAD_PARAMETER, "Incorrect parameter: q has more than 32 words")


def key_of(params: Params | Mapping[str, str]) -> str | None:
    return params.get("apikey") or params.get("r") or None
