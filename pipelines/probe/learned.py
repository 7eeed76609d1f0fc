"""What a release's probed articles tell together: its usable name, its password state,
the inner names readers can search for.

The usable name is the largest named file of a par2 set or an archive listing (or the
yEnc name of the article itself) that is neither packaging nor random, as its stem: the
release name without volume suffix or extension. The articles are taken in the order
the ladder read them, and the first that gives a name gives it: a par2 set names the
files as they were before obfuscation, a listing the file inside.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from kernels import subject as sk
from pipelines import naming
from pipelines.probe import inspection as ins
from pipelines.probe.inspection import Inspection
from pipelines.subjects.file_names import classify

# files that only carry others: repair and check files, indexes, notes
PACKAGING = frozenset((sk.PAR2_INDEX, sk.PAR2_VOL, sk.SFV, sk.NZB, sk.NFO, sk.TEXT))
ARCHIVES = frozenset((ins.RAR, ins.SEVEN_ZIP, ins.ZIP))
MAX_INNER_NAMES = 20

# where a name came from, by the kind of article that gave it (the releases' `source`)
SOURCE_OF_KIND = {ins.PAR2: "par2", ins.RAR: "archive", ins.ZIP: "archive", ins.SEVEN_ZIP: "7z"}

# Newznab's password attr
NOT_PASSWORDED, PASSWORDED, INNER_ARCHIVE = 0, 1, 2


_CAPITAL_RUN = re.compile(r"[A-Z]{2,}")


class Named(NamedTuple):
    name: str
    source: str


def _usable(file_name: str) -> bool:
    ext_class = classify(file_name.encode("utf-8", "surrogateescape"))[0]
    if ext_class in PACKAGING:
        return False
    return _plain(naming.stem(file_name))


def _plain(name: str) -> bool:
    core = name.strip(" ._-")
    if len(core) < 3 or naming.random_token(core):
        return False
    if len(core) < 12 or not core.isalnum() or core.islower() or core.isupper():
        return True
    # one token of both cases and digits (`F6slaHCCVE9YLLoh`), or of runs of capitals amid
    # small letters (`DqyddHSQAbAVKynm`; CamelCase words have single capitals): the random
    # names a set made after renaming lists, shorter than the header pass's random test needs
    digits = any(c.isdigit() for c in core)
    return not digits and len(_CAPITAL_RUN.findall(core)) < 2


def name_of_listing(names: Sequence[str], sizes: Sequence[int | None]) -> str | None:
    """The largest usable file of a set or listing, as a release name (its stem)."""
    best: tuple[int, str] | None = None
    for i, file_name in enumerate(names):
        base = file_name.replace("\\", "/").rsplit("/", 1)[-1]  # an archive's folders
        if not _usable(base):
            continue
        size = sizes[i] if i < len(sizes) and sizes[i] is not None else 0
        if best is None or int(size or 0) > best[0]:
            best = (int(size or 0), base)
    return None if best is None else naming.stem(best[1]).strip()


# results whose yEnc header was read whole: a part of no format we read (an .iso, a .bin,
# a file with no extension) or with a bad CRC still carries the name its poster gave it
YENC_READ = frozenset((ins.OK, ins.ERROR, ins.BAD_CRC))


def usable_name(results: Sequence[Inspection]) -> Named | None:
    """The name the articles give, in the order read; None when none does."""
    for r in results:
        if r.status not in YENC_READ:
            continue
        if r.names and r.status == ins.OK:
            name = name_of_listing(r.names, r.sizes)
            if name:
                return Named(name, SOURCE_OF_KIND.get(r.kind, "archive"))
        if r.yenc_name and _usable(r.yenc_name):
            return Named(naming.stem(r.yenc_name).strip(), "yenc")
    for r in results:  # an NFO's title only when no file is named
        if r.status == ins.OK and r.nfo_title and _plain(r.nfo_title):
            return Named(r.nfo_title.strip(), "nfo")
    return None


def password_of(results: Sequence[Inspection]) -> int | None:
    """1 when an archive is encrypted, else 2 when one holds an archive, else 0 when an
    archive was read and is not encrypted; None (unknown) when no archive told."""
    archives = [r for r in results if r.status == ins.OK and r.kind in ARCHIVES]
    if any(r.encrypted for r in archives):
        return PASSWORDED
    if any(r.inner_archive for r in archives):
        return INNER_ARCHIVE
    if any(r.encrypted is False for r in archives):
        return NOT_PASSWORDED
    return None


def password_text(results: Sequence[Inspection]) -> str | None:
    return next((r.password_text for r in results if r.password_text), None)


def inner_names(results: Sequence[Inspection]) -> list[str]:
    """Archive entries, par2 set names and NFO titles, once each, the first 20."""
    seen: dict[str, None] = {}
    for r in results:
        if r.status != ins.OK:
            continue
        for file_name in r.names:
            if file_name and _usable(file_name.rsplit("/", 1)[-1]):
                seen.setdefault(file_name, None)
        if r.nfo_title:
            seen.setdefault(r.nfo_title, None)
    return list(seen)[:MAX_INNER_NAMES]


def nfo_title(results: Sequence[Inspection]) -> str | None:
    return next((r.nfo_title for r in results if r.status == ins.OK and r.nfo_title), None)
