"""File names of a set: the release stem a file name carries, and what a namer skips."""

from __future__ import annotations

import re

_SUFFIX = re.compile(
    r"(\.part\d+\.rar|\.vol\d+\+\d+\.par2|\.7z\.\d{3}|\.[rs]\d\d|\.[A-Za-z0-9]{2,4})$",
    re.IGNORECASE,
)
# files a namer never takes a release's name from: they describe or index the others
PACKAGING = (".par2", ".sfv", ".nfo", ".nzb", ".m3u", ".srr")


def stem_of(file_name: str) -> str:
    """`Name.part01.rar`, `Name.r00`, `Name.7z.001`, `Name.vol03+04.par2`, `Name.mkv`:
    `Name`. A name with no such suffix is its own stem."""
    return _SUFFIX.sub("", file_name, count=1)


def suffix_of(file_name: str) -> str:
    return file_name[len(stem_of(file_name)) :]


def packaging(file_name: str) -> bool:
    return file_name.lower().endswith(PACKAGING)


def usable_stem(files: list[tuple[str, int]]) -> str | None:
    """The stem of the largest file that is not packaging (ties: the first by name)."""
    named = [(size, name) for name, size in files if not packaging(name)]
    if not named:
        return None
    return stem_of(min(named, key=lambda f: (-f[0], f[1]))[1])


def first_volume(file_name: str) -> bool:
    """The volume a RAR or 7z set starts with: `.part1.rar` (any padding), `.rar`
    (old naming), `.7z.001`."""
    low = file_name.lower()
    part = re.search(r"\.part(\d+)\.rar$", low)
    if part:
        return int(part.group(1)) == 1
    return low.endswith(".rar") or low.endswith(".7z.001")


def seven_zip_volume(file_name: str) -> int | None:
    hit = re.search(r"\.7z\.(\d{3})$", file_name.lower())
    return int(hit.group(1)) if hit else None


def rar_volume(file_name: str) -> bool:
    return re.search(r"(\.rar|\.[r-z]\d\d)$", file_name.lower()) is not None


def rar_volume_number(file_name: str) -> int:
    """A RAR volume's place in its set from 0 (the first): `.part03.rar` 2, `.rar` 0,
    `.r00` 1, `.s00` 101 (old naming goes on from `.r99` to `.s00`)."""
    low = file_name.lower()
    part = re.search(r"\.part(\d+)\.rar$", low)
    if part:
        return max(int(part.group(1)) - 1, 0)
    old = re.search(r"\.([r-z])(\d\d)$", low)
    if old:
        return (ord(old.group(1)) - ord("r")) * 100 + int(old.group(2)) + 1
    return 0
