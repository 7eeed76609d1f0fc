"""The release name shown for a subject: its identity with the posting tags trimmed.

Posters wrap a name in tags that say who posted it or where, a reply's `Re:` and runs of
dashes: a name for people drops them, so that the title is what a reader and a search
see. Then the uploader and site text of `pipelines.naming.posting_text` goes (requests,
fills, `Presents`, sites, sponsors, uploader tags, quotes or brackets around the whole).
When nothing but tags is left the identity is shown as it is (still one name per
identity), when nothing but posting text, the stem of its file name, and when the
subject has no identity at all, the stem of its file name too.
"""

from __future__ import annotations

import re

from pipelines.naming.identity import _display_text
from pipelines.naming.posting_text import trim_posting_text
from pipelines.naming.text import file_name, stem, to_text

# Bracketed tags that say who posted or where, not what: `[PRiVATE]`, `[FULL]`,
# `[#a.b.teevee@EFNet]`, `[278997]`, `<TOWN>`, `[ www.town.ag ]`. A bracketed year,
# `(1994)`, is part of the name (Radarr and Sonarr read titles with it), not a tag.
_TAG = re.compile(
    r"""\s*[\[(<{]\s*(?:
        (?!(?:19|20)\d\d\s*[\])>}])[\d#]+ |
        full | private | repost | req(?:uest)? | town | tv | partner[^\])>}]* |
        \#[^\])>}]* | [^\])>}\s]*@[^\])>}]* | a(?:lt)?\.?b(?:in\w*)?\.[^\])>}]* |
        altbin\w* | (?:www\.)?[\w-]+\.(?:info|org|com|net|ag|nl|de|eu|cc|to)
    )\s*[\])>}]\s*""",
    re.IGNORECASE | re.VERBOSE,
)
_WRAPPED = re.compile(r"^[\s\-_.:|>]*\[\s*([^\[\]]{4,}?)\s*\][\s\-_.:|<]*$")
_EDGE = " \t-_.:|<>~*=+,;"
_REPLY = re.compile(r"^\s*(?:re|fwd?|aw)\s*:\s*", re.IGNORECASE)
_SEPARATORS = re.compile(r"\s*(?:-\s*){2,}")


def display_name(subject: bytes) -> str:
    """The release name to show for a subject: its identity with posting tags trimmed
    (the identity as it is when that leaves nothing), or, when the identity is empty, the
    stem of its file name."""
    identity = to_text(_display_text(subject))
    text = _REPLY.sub("", identity) if ":" in identity else identity
    if _opens_bracket(text):
        dropped = 1
        while dropped:  # tags can stand side by side: `[1234]-[FULL]-[#a.b.x]-`
            text, dropped = _TAG_SCAN.subn(" ", text)
            # no tag left: none once stripped either (_TAG has no anchors), done
            text = text.strip(_EDGE)
    else:  # no bracket, no tag
        text = text.strip(_EDGE)
    if "-" in text and _DASHES.search(text):
        text = _SEPARATORS.sub(" - ", text)
    if "[" in text:
        wrapped = _WRAPPED.match(text)
        if wrapped:
            text = wrapped.group(1)
    # split() and \s split at the same characters (str.isspace): the runs become one space
    return _named(" ".join(text.split()).strip(_EDGE), identity, subject)


def _named(text: str, identity: str, subject: bytes) -> str:
    """The trimmed identity `text` without its uploader and site text
    (`pipelines.naming.posting_text`); when that is all it is, the subject's file name's
    stem; when `text` is empty, `_or_fallback`."""
    if not text:
        return _or_fallback(text, identity, subject)
    return trim_posting_text(text) or _or_fallback("", "", subject)


def _or_fallback(text: str, identity: str, subject: bytes) -> str:
    """The trimmed identity `text`; when trimming left nothing, the identity as it is; when
    there is no identity, the subject's file name's stem (the subject's text, last)."""
    if text:
        return text
    if identity:  # nothing but tags: still one name per identity
        return identity
    name = file_name(subject)
    if name:
        return stem(name) or name
    return " ".join(to_text(subject).split())


# _TAG, but it starts with a character class: the regex engine skips to the places where
# one can start (a space or an opening bracket) instead of trying every one
_TAG_SCAN = re.compile(
    _TAG.pattern.replace(r"\s*[\[(<{]", r"[\s\[(<{](?:(?<=[\[(<{])|(?<=\s)\s*[\[(<{])", 1),
    _TAG.flags,
)
_DASHES = re.compile(r"-\s*-")  # what each _SEPARATORS match holds


def _opens_bracket(text: str) -> bool:
    return "[" in text or "(" in text or "<" in text or "{" in text
