"""A release name made ready for the episode rules, and titles made comparable.

`prepare` takes off what is not the release's own name: a file extension, a tracker's or
a website's tag at either end (`[ www.Torrenting.com ] - `, `[eztv]`), a leading title in
another script before the Latin one (`Босх: Спадок / Series: Legacy`). `title_key` is
the one form in which titles are compared, here and by the id lookup (`pipelines.ids`):
the same words up to case, accents, punctuation and the small words that naming
conventions drop or keep at will.
"""

from __future__ import annotations

import re
import unicodedata

_EXTENSION = re.compile(
    r"\.(?:mkv|avi|mp4|m4v|ts|wmv|mpg|mpeg|divx|xvid|webm|flv|mov|nzb|par2|rar|srt)$", re.I
)
_SITE_PREFIX = re.compile(
    r"^(?:\[\s*(?:www\.)?[\w.-]+\.(?:com|org|net|pl|info|to|tv)\s*\]\s*-?\s*"
    r"|www\.[\w-]+\.(?:com|org|net|info|to|tv)\s*-\s*)",
    re.I,
)
_TRAILING_TAGS = re.compile(r"(?:\s*\[(?:eztv|ettv|rarbg|rartv|publichd|vtv)[^\]]*\])+\s*$", re.I)
_LATIN = re.compile(r"[A-Za-z]")
_SMALL_WORD_RUN = re.compile(r" (?:(?:the|a|an|and|of) )+")
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def prepare(name: str) -> str:
    """The name without extension, site prefix, trailing tracker tags and a title in
    another script that a Latin one follows."""
    text = name.strip()
    text = _EXTENSION.sub("", text)
    text = _SITE_PREFIX.sub("", text)
    text = _TRAILING_TAGS.sub("", text)
    return _latin_title_first(text).strip()


def _latin_title_first(text: str) -> str:
    """`Босх: Спадок / Series: Legacy (S2E1)` -> `Series: Legacy (S2E1)`;
    `我的人间烟火.Fireworks.Series.S01E01` -> `Fireworks.Series.S01E01`."""
    if text.isascii():
        return text
    if " / " in text:
        parts = text.split(" / ")
        kept = [p for p in parts if not _foreign_title(p)]
        if kept and len(kept) < len(parts):
            return " / ".join(kept)
    lead = re.match(r"^[^\x00-\x7f]+[ ._]+(?=[A-Za-z])", text)
    if lead and not _LATIN.search(lead.group(0)):
        return text[lead.end() :]
    return text


def _foreign_title(part: str) -> bool:
    """Whether a part holds letters and none of them Latin (outside brackets)."""
    letters = [c for c in re.sub(r"\([^)]*\)", "", part) if c.isalpha()]
    return bool(letters) and not any(c.isascii() for c in letters)


def title_key(title: str) -> str:
    """The comparable form of a title: ASCII lower case, `&` as `and`, words of letters
    and digits, small words (the, a, an, and, of) dropped unless nothing else is left.
    `pipelines.ids.keys.TITLE_KEY_SQL` is the same steps in DuckDB's SQL, for the bulk of
    an import: the two agree (tests/test_ids_keys.py)."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    folded = folded.lower().replace("&", " and ").replace("'", "").replace("`", "")
    words = _NOT_WORD.sub(" ", folded)
    kept = _SMALL_WORD_RUN.sub(" ", f" {words} ").strip()
    return kept or words.strip()


def display_title(raw: str) -> str:
    """A title as people write it: separators (`.`, `_`) as spaces, no trailing dash or
    open bracket, one space between words."""
    text = raw.replace("_", " ")
    # dots separate words unless they belong to an abbreviation (`B.B.`) or a number
    text = re.sub(r"(?<=[^\s.])\.(?=[^\s.])", " ", text)
    text = re.sub(r"\s+", " ", text)
    return text.strip(" -([{/|:.,").strip()
