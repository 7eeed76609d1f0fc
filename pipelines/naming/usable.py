"""The name a release is shown by, and whether it can be shown at all.

A subject's name may be a random token while the files under it have plain names (the
poster hid only the subject): the release then takes the first plain file stem. When
most files are random too, the upload is obfuscated and unreadable until the article pass
names it.
"""

from __future__ import annotations

from pipelines.naming.no_name import name_words
from pipelines.naming.random_names import random_token
from pipelines.naming.text import stem, to_text


def usable_name(
    name: str, file_names: list[bytes], random_names: list[bool], template: bool = False
) -> tuple[str, bool]:
    """The name to show, and whether it is usable at all.

    A release is unreadable when its name is one random token, or no name at all
    (`pipelines.naming.no_name`: `Description`, `????`, a site's tag, `1080p`), or one
    word alone (a tag as often as a title: `DoAsYouLike`), and most of its files have
    random names too (an obfuscated upload: pending, for the article pass to name). A
    random subject, or one that is no name, or one word alone that no file name holds
    (`-'- Doc2011 -'-`), over readable files takes its name from the files instead.
    `file_names` and `random_names` are its files' names and random-name flags;
    `template`: the name is an album's template (`IMG_#.jpg`, `P#.JPG`), a name as it is.
    """
    if len(file_names) != len(random_names):
        raise ValueError(f"{len(file_names)} file names but {len(random_names)} random flags")
    core = name.strip(_NAME_EDGE)
    # a random token is letters, digits, `_` and `-`: a dot or a space (most names) says
    # it is none without the test
    if core and ("." in core or " " in core or not random_token(core)):
        words = name_words(core, 2)
        if len(words) == 2 or template:  # most names
            return name, True
        by_files = _files_name(file_names, random_names)
        if by_files is None:
            return core, False
        if words and _named_by(words[0], file_names):
            return name, True
        return by_files, True
    by_files = _files_name(file_names, random_names)
    if by_files is None:
        return core or name, False
    return by_files, True


def _named_by(word: str, file_names: list[bytes]) -> bool:
    """Whether a file's name holds the one word a name has (`Zelazny` of `(Zelazny)` over
    `Roger Zelazny - The Furies.mobi`): the word is the release's, not a poster's tag."""
    return any(word in to_text(raw).lower() for raw in file_names)


def _files_name(file_names: list[bytes], random_names: list[bool]) -> str | None:
    """The first plain file stem when more than half the files have plain names, else
    None (stop as soon as the count decides it; a file flagged random needs no stem)."""
    total = len(file_names)
    first = ""
    plain = hashed = 0
    for raw, random_name in zip(file_names, random_names, strict=True):
        if not random_name:
            file_stem = stem(to_text(raw))
            if file_stem and not random_token(file_stem.strip(_NAME_EDGE)):
                plain += 1
                first = first or file_stem
                if plain * 2 > total:
                    return first
                continue
        hashed += 1
        if hashed * 2 >= total:
            break
    return None


_NAME_EDGE = " \t[](){}<>-_.\"'"
