"""A spot's category as a Newznab category id (../shared/data/newznab/categories.tsv).

A spot names a head category (0 image, 1 sound, 2 games, 3 apps) and sub-categories: `a`
the format, `b` the source, `c` the language, `d` the genre, `z` the type (for images:
z0 film, z1 series, z2 book, z3 erotic, z4 picture). The table follows the one Spotweb's
Newznab API serves, with three differences its users asked for: books (z2, and the
e-book formats a5 and a11) are Books/EBook rather than films; consoles Spotweb names by
text (PS4, Xbox One, 3DS) have their Newznab ids; and a format it does not list falls to
the type's parent rather than to nothing.
"""

from __future__ import annotations

# head 0 (image): per type z, per format a. a5 and a11 are e-book formats (ePub, PDF)
_FILM = {0: 2030, 1: 2030, 2: 2030, 3: 2030, 4: 2040, 6: 2050, 7: 2040, 8: 2040, 9: 2040,
         10: 2030, 14: 2060}  # fmt: skip
_SERIES = {0: 5030, 1: 5030, 2: 5030, 3: 5030, 4: 5040, 6: 5040, 7: 5040, 8: 5040, 9: 5040,
           10: 5030, 14: 5050, 15: 5045}  # fmt: skip
_EROTIC = {0: 6030, 1: 6030, 2: 6030, 3: 6030, 4: 6040, 6: 6040, 7: 6040, 8: 6030, 9: 6040,
           10: 6030}  # fmt: skip
_IMAGE = {0: (2000, _FILM), 1: (5000, _SERIES), 3: (6000, _EROTIC), 4: (7000, {11: 7010, 12: 7010})}
EBOOK_FORMATS = (5, 11)
# head 1 (sound): per format; z3 is the spoken word
_LOSSLESS = (2, 4, 5, 7, 8)  # WAV, EAC, DTS, APE, FLAC
# head 2 (games): per format (platform)
_GAMES = {0: 4050, 1: 4030, 5: 1020, 6: 1040, 7: 1050, 10: 1010, 11: 1030, 12: 1080, 13: 4040,
          14: 4040, 15: 4040, 16: 1110, 17: 1180, 18: 1140}  # fmt: skip
# head 3 (apps): per format (platform)
_APPS = {0: 4020, 1: 4030, 4: 4040, 6: 4060, 7: 4070}


def _first(subcats: list[str], letter: str) -> int | None:
    for s in subcats:
        if s[:1] == letter and s[1:].isdigit():
            return int(s[1:])
    return None


def newznab_category(head: int, subcats: list[str]) -> int:
    """The Newznab id of a spot's head category and sub-categories (`a9`, `z1`, ...)."""
    a = _first(subcats, "a")
    z = _first(subcats, "z")
    if head == 0:
        if z == 2 or a in EBOOK_FORMATS:
            return 7020
        parent, formats = _IMAGE.get(z or 0, _IMAGE[0])
        return formats.get(a, parent) if a is not None else parent
    if head == 1:
        if z == 3:
            return 3030
        if a is None:
            return 3000
        return 3040 if a in _LOSSLESS else 3010
    if head == 2:
        return _GAMES.get(a, 1000) if a is not None else 1000
    if head == 3:
        return _APPS.get(a, 4000) if a is not None else 4000
    return 8010
