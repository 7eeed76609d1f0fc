"""An NFO's text: the release name it states, and a password it gives.

Scene NFOs are CP437 text with box-drawing art around a few fields. The release name is
either a field ("Title:", "Release:", "Name:", ...) or a bare scene-style name line
(dotted words ending in -GROUP); a password is a "Password: xyz" line, which posters of
passworded uploads put in an NFO or a text file beside the archive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MAX_TEXT = 256 * 1024  # an NFO is a few KB; a bigger "text" is something else
# A field's keyword finds the candidate lines, and only those are matched whole: a pattern
# anchored at every line start retries its leading art class at each byte of the art.
# (the keys search a lowercased copy: case-insensitive alternation is several times slower)
_FIELD_KEY = re.compile(r"(?:release(?:\s+name)?|title|name|rls)\s*[:.\]=]")
_FIELD_LINE = re.compile(
    r"[^\w\n]*(?:release(?:\s+name)?|title|name|rls)\s*[:.\]=]+\s*(?P<value>[^\n]{3,200}?)\s*",
    re.I,
)
_PASSWORD_KEY = re.compile(r"pass|pw|wachtwoord|mot de passe")
_PASSWORD_LINE = re.compile(
    r"[^\w\n]*(?:password|passwort|passwd|pass|pw|wachtwoord|mot de passe)\s*[:=]+\s*"
    r"(?P<value>\S[^\n]{0,100}?)\s*",
    re.I,
)
_SCENE_NAME = re.compile(
    r"(?<![\w.])(?P<name>[A-Za-z0-9][A-Za-z0-9()'&+]*(?:[._][A-Za-z0-9()'&+]+){2,}-[A-Za-z0-9]{2,})(?![\w.-])"
)
# bytes a text file holds: printable ASCII, tabs and line ends, and CP437's art (0x80+)
_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13, 26, 27))


_ART = "█▓▒░▄▀■│─┌┐└┘╔╗╚╝║═"
_FRAME = " .:-*=|[]<>" + _ART  # what frames a field's value in the art


@dataclass(frozen=True)
class NfoText:
    title: str | None
    password: str | None
    art: bool  # CP437 box drawing: an NFO's look


def as_text(data: bytes) -> str | None:
    """The bytes as text, or None when they are not text (control bytes, a NUL)."""
    if not data or len(data) > _MAX_TEXT:
        return None
    sample = data[:4096]
    controls = sum(sample.count(c) for c in _CONTROL)
    if controls > len(sample) // 200:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp437")


def _field(text: str, lower: str, key: re.Pattern[str], line: re.Pattern[str]) -> str | None:
    """The value of the first line that `line` matches whole, among those where `key` is
    found in `lower` (the text lowercased, its offsets the same)."""
    for m in key.finditer(lower):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        found = line.fullmatch(text, start, len(text) if end < 0 else end)
        if found:
            return found.group("value")
    return None


def read_text(text: str) -> NfoText:
    lower = text.lower()
    if len(lower) != len(text):  # a few characters lowercase to two: offsets would shift
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    title = _field(text, lower, _FIELD_KEY, _FIELD_LINE)
    if title is not None:
        title = title.strip(_FRAME)
    else:
        scene = _SCENE_NAME.search(text)
        title = scene.group("name") if scene else None
    password = _field(text, lower, _PASSWORD_KEY, _PASSWORD_LINE)
    art = sum(text.count(c) for c in _ART) >= 8
    return NfoText(title or None, password.strip() if password else None, art)
