"""The Newznab category of a release, from its name and the groups it was posted to.

Sonarr, Radarr and LazyLibrarian search by category, so a release must land in the one
they look in. The rules decide in a fixed order, each only when the ones before did not:
an adult group, a random (hashed) name, the marks of TV, a film's year beside a video
word, the words of music, books, games and software, what the files hold (pictures,
music, books: `pipelines.naming.content`), and last what the groups say.
"""

from __future__ import annotations

import functools
import operator
import re

from pipelines.naming.content import BOOKS, IMAGES, LOSSLESS, MUSIC, VIDEO
from pipelines.naming.groups import _group_facts
from pipelines.naming.keywords import (
    _ANDROID,
    _AUDIOBOOK,
    _COMIC,
    _DISC,
    _EBOOK,
    _GAME,
    _HD,
    _IOS,
    _LOSSLESS,
    _MAC,
    _MUSIC,
    _SOFTWARE,
    _UHD,
    _VIDEO,
    _Name,
)
from pipelines.naming.random_names import _random_name
from pipelines.naming.tv import _anime, _dated, _episode_evidence

_YEAR = re.compile(r"(?<![0-9])(?:19[2-9]\d|20[0-4]\d)(?![0-9])")


def _xxx(name: str) -> int:
    if _UHD.pattern.search(name):
        return 6045
    if re.search(r"x264|h\.?264|1080p|720p", name, re.I):
        return 6040
    if re.search(r"(?<![a-z])(?:xvid|divx)(?![a-z])", name, re.I):
        return 6030
    if re.search(r"(?<![a-z])wmv(?![a-z])", name, re.I):
        return 6020
    if re.search(r"(?<![a-z])dvd", name, re.I):
        return 6010
    if re.search(r"(?<![a-z])(?:jpe?g|png|gif|imageset|pics?)(?![a-z])", name, re.I):
        return 6060
    return 6000


def _tv(name: _Name, anime: bool) -> int:
    if anime:
        return 5070
    if name.has(_UHD):
        return 5045
    if name.has(_HD):
        return 5040
    return 5030


def _film(name: _Name) -> int:
    if name.has(_UHD):
        return 2045
    if name.has(_DISC):
        return 2050
    if name.has(_HD):
        return 2040
    return 2030


# what the files hold, when the name said nothing (Other > Misc for pictures: Newznab's
# only picture category, XXX > ImgSet, is for the adult groups; video files leave film or
# TV to the name and the groups)
_BY_FILES = {IMAGES: 8010, MUSIC: 3010, LOSSLESS: 3040, BOOKS: 7020}


def category_of(name: str, groups: list[str], content: str = "") -> int:
    """The Newznab category id of a release from its name, the groups it was posted to
    and what its files hold (`pipelines.naming.content.content_of`)."""
    by_groups = _group_facts(tuple(groups))
    if by_groups.xxx:
        return 6060 if content == IMAGES else _xxx(name)
    if _random_name(name):
        return 8020  # a hashed name says nothing about what it is
    # the rules in the order they decide; each runs only when the ones before did not
    text = _Name(name)
    # a full date names a broadcast day: it beats the year of a film
    if _dated(text):
        return _tv(text, by_groups.anime or _anime(name))
    video = text.has(_VIDEO)
    # video files stand for a video word beside a year: `Name.2008` over `Name.2008.avi`
    film = (video or content == VIDEO) and bool(_YEAR.search(name))
    episode = _episode_evidence(text, video, film)
    if episode == 2 or (episode == 1 and not film):
        return _tv(text, by_groups.anime or _anime(name))
    if film:
        return _film(text)
    return _by_content(text, video) or _BY_FILES.get(content, 0) or by_groups.category


def _by_content(name: _Name, video: bool) -> int:
    if name.lowered is not None and not name.maybe & _CONTENT_BITS:
        found = name.marks & _CONTENT_BITS  # the words decide every content rule
        if found:
            return next(category for rule, category in _CONTENT if found & rule.bit)
    else:
        for rule, category in _CONTENT:
            if name.has(rule):
                return category
    return 2000 if video else 0


_CONTENT = (
    (_AUDIOBOOK, 3030),
    (_LOSSLESS, 3040),
    (_COMIC, 7030),
    (_EBOOK, 7020),
    (_MUSIC, 3010),
    (_GAME, 4050),
    (_ANDROID, 4070),
    (_IOS, 4060),
    (_MAC, 4030),
    (_SOFTWARE, 4010),
)
_CONTENT_BITS = functools.reduce(operator.or_, (rule.bit for rule, _ in _CONTENT))
