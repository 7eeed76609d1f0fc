"""Header bytes as text for people, and the file names and stems shown from them.

Subjects and posters are bytes of no declared charset: most are UTF-8, older posts
Windows-1252, and any byte string must still become some text, so the decoding falls
back rather than fails. A file's stem (its name without archive and volume suffixes)
follows the parser's rule (`pipelines.subjects.rules.stem`), so that a name shown for a
release is the identity the parser grouped it by.
"""

from __future__ import annotations

from pipelines.subjects import rules as subject_rules


def to_text(b: bytes) -> str:
    """Bytes as text: UTF-8 when valid, else Windows-1252, else Latin-1 (never fails)."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return b.decode("cp1252")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def stem(name: str) -> str:
    """The file name without archive and volume suffixes (`x.part01.rar` -> `x`)."""
    raw = name.encode("utf-8", "surrogateescape")
    return subject_rules.stem(raw).decode("utf-8", "surrogateescape")


def file_name(subject: bytes, name_start: int = -1, name_end: int = -1) -> str:
    """The file name a subject names ("" if none); offsets (relative to the subject)
    from the parser can be given to skip parsing it again."""
    if name_start < 0:
        parsed, _ = subject_rules.parse_kept(subject, keys=False)
        name_start, name_end = parsed.name_start, parsed.name_end
    if name_start < 0:
        return ""
    return to_text(subject[name_start:name_end]).strip()
