"""A PreDB section (`TV-X264`, `MP3`, `Movie HD-1080p`) as a Newznab category: what a
release named by its pre shows when its name alone gives no category."""

from __future__ import annotations

import re

# first match wins; the words as PreDBs write their sections (nZEDb's dumps, xREL's)
_RULES = [
    (r"XXX|PORN|ADULT", 6000),
    (r"\bTV\b.*(UHD|2160)", 5045),
    (r"\bTV\b.*(X264|HD|720|1080|X265)", 5040),
    (r"\bTV\b.*(XVID|SD|DVD)", 5030),
    (r"\bTV\b|SERIES|EPISODE|SPORT", 5000),
    (r"ANIME", 5070),
    (r"2160|UHD", 2045),
    (r"BLURAY|BDRIP|COMPLETE.BD", 2050),
    (r"X265|HEVC", 2090),
    (r"X264|HD|720|1080", 2040),
    (r"XVID|DIVX|\bSD\b", 2030),
    (r"DVDR|DVD", 2070),
    (r"MOVIE|FILM|MDVDR|MBLURAY", 2000),
    (r"FLAC|LOSSLESS", 3040),
    (r"AUDIOBOOK|ABOOK", 3030),
    (r"MP3|MUSIC|MVID|MDVD|AUDIO", 3010),
    (r"EBOOK|BOOK|MAGAZINE", 7020),
    (r"COMIC", 7030),
    (r"PS[345]|PSP|PSV|XBOX|X360|XBOXONE|NSW|SWITCH|WII|NDS|3DS|CONSOLE", 1000),
    (r"GAME|ISO|DOX", 4050),
    (r"0DAY|APPS|APP|PDA|MAC|LINUX|WIN", 4000),
]
_COMPILED = [(re.compile(p, re.IGNORECASE), c) for p, c in _RULES]


def section_category(section: str | None) -> int:
    """The Newznab category of a PreDB section; 0 when it says nothing (`PRE`, empty)."""
    for pattern, category in _COMPILED:
        if section and pattern.search(section):
            return category
    return 0
