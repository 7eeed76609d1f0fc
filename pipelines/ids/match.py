"""A release's ids: its parsed name matched to one lookup entry, or to none.

Precision first (a wrong id makes a client grab the wrong show): a release gets ids only
when its name leaves exactly one candidate.

- A film needs its title and its year: `The.Avengers.2012.1080p` is the 2012 film; the
  title alone (`The.Avengers.1080p`) names a 1998 film as well, and a film without a
  year is never matched.
- A series (an episode, a season, a day, an absolute number) is matched by its title;
  when several series share it (`Shameless` of 2004 and of 2011, `The Office` of 2001
  and 2005), only the year in the name decides (`Shameless.US` or no year: none).
  `Series.2010.S01E01` may also be a series whose title holds the year: that reading is
  tried when the year decides nothing.
- A name that is no film's or series' (a title only, no year) gets none.

The method and the number of candidates are recorded with every outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.ids.lookup import IdLookup
from pipelines.names import ParsedName, title_key

TV_KINDS = ("episode", "daily", "absolute", "season")


@dataclass(frozen=True)
class IdMatch:
    entry: int | None  # the lookup entry, None when nothing or more than one matched
    method: str  # film+year | series | series+year | series-title-year | ambiguous | none
    candidates: int  # entries of that title (and kind) the lookup holds
    episode_imdb: int = 0  # the episode's own IMDb number, when the lookup has it


def match_parsed(parsed: ParsedName, lookup: IdLookup) -> IdMatch:
    tv = parsed.kind in TV_KINDS
    if not tv and parsed.kind != "movie":
        return IdMatch(None, "none", 0)
    key = title_key(parsed.title)
    if not key:
        return IdMatch(None, "none", 0)
    if tv:
        result = _series(lookup, key, parsed)
        if result.entry is None and parsed.year:
            # `Series.2010.S01E01`: the year may be the title's own (`Series 2010`)
            alone = lookup.candidates(title_key(f"{parsed.title} {parsed.year}"), True)
            if len(alone) == 1:
                result = IdMatch(int(alone[0]), "series-title-year", 1)
        return _with_episode(lookup, result, parsed)
    films = len(lookup.candidates(key, False))
    if parsed.year is None or not films:
        return IdMatch(None, "none", films)
    of_year = lookup.candidates(key, False, parsed.year)
    if len(of_year) == 1:
        return IdMatch(int(of_year[0]), "film+year", films)
    return IdMatch(None, "ambiguous" if len(of_year) > 1 else "none", films)


def _series(lookup: IdLookup, key: str, parsed: ParsedName) -> IdMatch:
    found = lookup.candidates(key, True)
    if not len(found):
        return IdMatch(None, "none", 0)
    if parsed.year:
        of_year = lookup.candidates(key, True, parsed.year)
        if len(of_year) == 1:
            return IdMatch(int(of_year[0]), "series+year", len(found))
        return IdMatch(None, "ambiguous" if len(found) > 1 else "none", len(found))
    if len(found) == 1:
        return IdMatch(int(found[0]), "series", 1)
    return IdMatch(None, "ambiguous", len(found))


def _with_episode(lookup: IdLookup, result: IdMatch, parsed: ParsedName) -> IdMatch:
    if result.entry is None or parsed.season is None or len(parsed.episodes) != 1:
        return result
    imdb = lookup.episode(result.entry, parsed.season, parsed.episodes[0])
    return IdMatch(result.entry, result.method, result.candidates, imdb)


@dataclass
class Accuracy:
    """How names of known truth fared: those whose title (and year) name one entry of
    their kind (`unique`), and of those the right, wrong and missing ids; the others
    (`doubtful`: remakes, namesakes) and the ids they got anyway (`doubtful_given`)."""

    unique: int = 0
    right: int = 0
    wrong: int = 0
    none: int = 0
    doubtful: int = 0
    doubtful_given: int = 0
    doubtful_wrong: int = 0

    def add(self, lookup: IdLookup, parsed: ParsedName, truth: int, series: bool) -> None:
        """Count a name by what `match_parsed` gives it."""
        result = match_parsed(parsed, lookup)
        got = int(lookup.ids["imdb"][result.entry]) if result.entry is not None else None
        self.add_given(lookup, parsed, truth, series, got)

    def add_given(
        self, lookup: IdLookup, parsed: ParsedName, truth: int, series: bool, got: int | None
    ) -> None:
        """Count a name by the IMDb number it was given (`got`; None: none)."""
        key = title_key(parsed.title)
        found = lookup.candidates(key, series, None if series else (parsed.year or -1))
        if len(found) == 1:
            self.unique += 1
            self.right += got == truth
            self.wrong += got is not None and got != truth
            self.none += got is None
        else:
            self.doubtful += 1
            self.doubtful_given += got is not None
            self.doubtful_wrong += got is not None and got != truth

    def text(self) -> str:
        u = max(self.unique, 1)
        return (
            f"{self.unique:,} names with a unique entry: {self.right / u:.2%} right, "
            f"{self.wrong / u:.3%} wrong, {self.none / u:.2%} none; {self.doubtful:,} doubtful "
            f"(remakes, namesakes): {self.doubtful_given:,} given ids, "
            f"{self.doubtful_wrong:,} of them wrong"
        )
