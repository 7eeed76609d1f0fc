"""What the groups a release was posted to say of its category.

A group's name often says what it carries (`alt.binaries.teevee`, `a.b.sounds.flac`),
which decides when the release name does not; an adult group decides before the name
(its releases have categories of their own), and an anime group makes a TV release
anime's. A range's releases share a few group lists, so each list is read once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

_XXX_GROUP = re.compile(r"erotica|xxx|porn", re.I)
_GROUP_CATEGORIES = [
    (re.compile(r"anime", re.I), 5070),
    (re.compile(r"teevee|\btv\b|\.tv|hdtv|tvseries|series|sitcom|documentar", re.I), 5000),
    (re.compile(r"movie|dvd|bluray|x264|hd\.|divx|xvid|cinema|film", re.I), 2000),
    (re.compile(r"lossless|flac", re.I), 3040),
    (re.compile(r"audiobook", re.I), 3030),
    (re.compile(r"sounds|mp3|music|audio", re.I), 3000),
    (re.compile(r"comic", re.I), 7030),
    (re.compile(r"e-?book|books", re.I), 7020),
    (re.compile(r"games", re.I), 4050),
    (re.compile(r"0day|warez|apps|pc\b|software|mac", re.I), 4000),
]


class _GroupFacts(NamedTuple):
    xxx: bool  # an adult group: its own categories
    anime: bool
    category: int  # the category the groups give when the name gives none


@functools.lru_cache(maxsize=4096)
def _group_facts(groups: tuple[str, ...]) -> _GroupFacts:
    """What a group list says, worked out once: a group's releases share it."""
    return _GroupFacts(
        xxx=any(_XXX_GROUP.search(g) for g in groups),
        anime=any("anime" in g.lower() for g in groups),
        category=_by_groups(groups),
    )


def _by_groups(groups: Sequence[str]) -> int:
    for pattern, category in _GROUP_CATEGORIES:
        if any(pattern.search(g) for g in groups):
            return category
    return 8010
