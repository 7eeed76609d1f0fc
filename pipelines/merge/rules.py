"""The merges' rules in one place: their windows, limits and the name tests they share.

A par2 set describes an upload's files as they were made, whatever they were posted as;
the name pass and the sidecar merge are weaker evidence, so they ask more of the rest
(the set's own poster, shorter windows). The figures are the earlier systems' (the
reference notes, "Phase 2").
"""

from __future__ import annotations

import functools
import re
import unicodedata

from kernels import subject as sk
from pipelines.subjects.file_names import classify

PAR2_WINDOW = 48 * 3600  # releases posted this close to the set's holder can join it
NAME_WINDOW = 12 * 3600  # the name pass: the set's poster's releases this close
SIDECAR_WINDOW = 10 * 60  # a sidecar release joins an upload of its poster this close
COMMON_FILES = 20  # a (16 KiB hash, size) more files than this share describes no upload
SIDECAR_MAX_FILES = 3
SIDECAR_MAX_BYTES = 1 << 20  # under 1 MB
WORD_LETTERS = 4  # a word a sidecar's name shares with its upload's has this many letters

SIDECARS = frozenset((sk.NFO, sk.SFV, sk.NZB))
PAR2_FILES = frozenset((sk.PAR2_INDEX, sk.PAR2_VOL))
# files the name pass leaves aside: they are no file of the set, or one of any upload
NAME_ASIDE = SIDECARS | PAR2_FILES | frozenset((sk.IMAGE,))

_PUNCT = re.compile(r"[\W_]+")  # what is no letter or digit
_WORD = re.compile(rf"[^\W\d_]{{{WORD_LETTERS},}}")


@functools.lru_cache(maxsize=1 << 16)
def ext_class(file_name: str) -> int:
    return classify(file_name.encode("utf-8", "surrogateescape"))[0]


@functools.lru_cache(maxsize=1 << 16)  # a window's names come again in the next batch
def plain_name(file_name: str) -> str:
    """A file name without case or punctuation (`Artist_-_01_-_Intro.MP3` and
    `artist - 01 - intro.mp3` are one): letters and digits, folded, folders cut off."""
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    if not base.isascii():
        base = unicodedata.normalize("NFKC", base)
    return _PUNCT.sub("", base.casefold())


def words(name: str) -> set[str]:
    """The words of 4 or more letters in a release name, folded."""
    return {w.casefold() for w in _WORD.findall(name)}


def distance(first_a: int, last_a: int, first_b: int, last_b: int) -> int:
    """Seconds between two posting spans (0 when they overlap)."""
    return max(0, first_b - last_a, first_a - last_b)
