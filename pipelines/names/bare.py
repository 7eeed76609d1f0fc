"""Episodes numbered by digits alone: a scene name's `103` and a fansub's `- 031`.

Without a marker (`S01E02`, `1x02`, a day), a number in a name may still be its episode:
`Title.103.720p` (season 1, episode 3, the scene's old form), `Title.10708` (episodes 7
and 8), `[Group] Title - 031 [720p]` or `Title - 031 - Episode` (episode 31 counted from
the show's start: absolute numbering, anime's). Which one is told by the name's shape: a
fansub's name (a leading `[Group]`, a CRC `[1A2B3C4D]`) or a zero-padded number is
absolute; otherwise three to six digits standing alone are season and episode. A year, a
picture size (`720p`, `1280x720`), a codec (`x264`, `H.264`) or an audio layout (`5.1`)
is no episode.
"""

from __future__ import annotations

import re

from pipelines.names.markers import RANK_EPISODE, Marker, numbers_span

_SCENE = re.compile(r"(?<=[ ._-])(?P<digits>\d{3,6})(?=[ ._-]|$)")
_AGAIN = re.compile(r"[ ._](?P<again>\d{3})(?![0-9a-z])")
_ABSOLUTE = re.compile(
    r"(?:(?<=[ _.\[(#-])|^)(?P<first>\d{1,4})(?:v\d)?"
    r"(?P<more>(?:(?:[-~]| ~ )\d{1,4}(?:v\d)?)*)(?=$|[ ._\])\[(~-])",
    re.I,
)
_CODEC_BEFORE = re.compile(r"(?:[hx]|dd|ddp|aac|ac3|dts|mp3|ch|flac)[ ._]?$", re.I)
_DASHED = re.compile(r"(?:^|[ ._])-[ ._]*$")


def scene_marker(text: str) -> Marker | None:
    """`Title.103`, `Title.1013`, `Title.10708`, `Title.103.104`: season and episodes."""
    for m in _SCENE.finditer(text):
        digits = m.group("digits")
        if _not_episode(text, m.start(), m.end()):
            continue
        if len(digits) == 4 and digits[:2] in ("19", "20"):
            continue  # a year
        if (digits[0] == "0" and len(digits) == 3) or _DASHED.search(text[: m.start()]):
            continue  # zero-padded or between dashes (`Title - 101 - Name`): absolute
        season, episodes = _scene_numbers(digits)
        if season is None:
            continue
        next_one = _AGAIN.match(text, m.end())
        again = next_one.group("again") if next_one else ""
        if again and int(again[0]) == season and int(again[1:]) > episodes[-1]:
            episodes = numbers_span(episodes[0], int(again[1:]))
        return Marker(m.start(), m.end(), RANK_EPISODE, season, episodes)
    return None


def _scene_numbers(digits: str) -> tuple[int | None, tuple[int, ...]]:
    n = len(digits)
    if n == 3:
        return int(digits[0]), (int(digits[1:]),)
    if n == 4:
        return int(digits[:2]), (int(digits[2:]),)
    if n == 5:
        first, last = int(digits[1:3]), int(digits[3:])
        return (int(digits[0]), numbers_span(first, last)) if last == first + 1 else (None, ())
    first, last = int(digits[2:4]), int(digits[4:])
    return (int(digits[:2]), numbers_span(first, last)) if last == first + 1 else (None, ())


def _not_episode(text: str, start: int, end: int) -> bool:
    """A codec's or an audio layout's number, a decimal, a picture size."""
    before = text[max(0, start - 6) : start]  # the codec's or layout's name ends there
    if _CODEC_BEFORE.search(before):
        return True
    if re.search(r"(?<![0-9])\d[.,]$", before) or re.match(r"[.,]\d(?![0-9])", text[end:]):
        return True
    return bool(re.match(r"[pik]\b|[pi]$|x\d|bit", text[end:], re.I))


def absolute_marker(text: str) -> Marker | None:
    """`Title - 031 - Episode`, `Title 01 Role Play [Group]`, `Title (01-25)`, `Title 1-13`:
    the first number after ` - `, else the last before the first tag in brackets."""
    candidates: list[re.Match[str]] = []
    cut = _first_tag(text)
    for m in _ABSOLUTE.finditer(text):
        first = m.group("first")
        if m.start() == 0 or _not_episode(text, m.start(), m.end()):
            continue
        if len(first) == 4 and first[:2] in ("19", "20"):
            continue  # a year
        if _DASHED.search(text[: m.start()]):
            return _absolute(m, _RANGE_START.search(text[: m.start()]))
        if m.start() < cut:
            candidates.append(m)
    return _absolute(candidates[-1]) if candidates else None


def _first_tag(text: str) -> int:
    """Where the first bracket that holds more than numbers opens (the tags' start)."""
    for m in re.finditer(r"[\[(]([^\])]*)[\])]", text):
        if not re.fullmatch(r"[\d ~-]+", m.group(1)):
            return m.start()
    return len(text)


# `Title 01 - 119`: a zero-padded number, a dash, then the batch's last number
_RANGE_START = re.compile(r"(?<=[ ._])(?P<first>0\d{1,3})[ ._]-[ ._]*$")


def _absolute(m: re.Match[str], range_start: re.Match[str] | None = None) -> Marker:
    first = int(m.group("first"))
    rest = re.findall(r"(?<![v\d])\d+", m.group("more"))
    numbers = numbers_span(first, int(rest[-1])) if rest else (first,)
    start = m.start()
    if range_start is not None and int(range_start.group("first")) < first:
        numbers, start = numbers_span(int(range_start.group("first")), first), range_start.start()
    return Marker(start, m.end(), RANK_EPISODE, absolute=numbers)


_AFTER_EPISODE = re.compile(
    r"^[ ._]*-?[ ._]*\(?(?P<first>\d{2,4})(?P<more>(?:-\d{2,4})*)\)?(?=[ ._\[(]|$)"
)
# a number of two digits only when set off by a dash or a bracket (`Title - 05 - S01E05`):
# `Series at Age 29 S01E03` keeps its 29
_BEFORE_EPISODE = re.compile(
    r"(?<=[ ._])(?:(?P<first>\d{3,4})[ ._]+|(?P<dashed>\d{2,4})[ ._]+(?:-[ ._]+|\())$"
)


def absolute_beside(text: str, marker: Marker) -> tuple[tuple[int, ...], int]:
    """A fansub's absolute number beside its season and episode (`S10E14 214`, `214 10x14`,
    `S01E01-02 - 001-002`): the numbers and where the title ends (the marker's start, or
    the number's when it comes first)."""
    after = _AFTER_EPISODE.match(text[marker.end :])
    if after and not _not_episode(
        text, marker.end + after.start("first"), marker.end + after.end("first")
    ):
        first = int(after.group("first"))
        rest = re.findall(r"\d+", after.group("more"))
        return (numbers_span(first, int(rest[-1])) if rest else (first,)), marker.start
    before = _BEFORE_EPISODE.search(text[: marker.start])
    number = (before.group("first") or before.group("dashed")) if before else ""
    if before and not (len(number) == 4 and number[:2] in ("19", "20")):
        return (int(number),), before.start()
    return (), marker.start
