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
_FIELD = re.compile(
    r"^[\s\W]*(?:release(?:\s+name)?|title|name|rls)\s*[:.\]=]+\s*(?P<value>[^\r\n]{3,200}?)\s*$",
    re.I | re.M,
)
_SCENE_NAME = re.compile(
    r"(?<![\w.])(?P<name>[A-Za-z0-9][A-Za-z0-9()'&+]*(?:[._][A-Za-z0-9()'&+]+){2,}-[A-Za-z0-9]{2,})(?![\w.-])"
)
_PASSWORD = re.compile(
    r"^[\s\W]*(?:password|passwort|passwd|pass|pw|wachtwoord|mot de passe)\s*[:=]+\s*"
    r"(?P<value>\S[^\r\n]{0,100}?)\s*$",
    re.I | re.M,
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


def read_text(text: str) -> NfoText:
    title = None
    m = _FIELD.search(text)
    if m:
        title = m.group("value").strip(_FRAME)
    else:
        scene = _SCENE_NAME.search(text)
        title = scene.group("name") if scene else None
    pw = _PASSWORD.search(text)
    art = sum(text.count(c) for c in _ART) >= 8
    return NfoText(title or None, pw.group("value").strip() if pw else None, art)
