"""A subject's release identity as the poster wrote it: the text a release name starts from.

The parser (`pipelines.subjects.rules`) blanks out of a subject what is one file's (its
name, counters, sizes, `yEnc`) and keys the release by what is left, case folded; the
name shown keeps the case. Running the full parse again for each release is the slow
part of naming, and most subjects have one shape, `<identity> [i/N] - "<file name>"
yEnc (k/K)`: for them the identity is cut from around the file name in a few C-level
passes, and every other subject goes through the parser's rules. tests/test_naming.py
and tests/test_naming_fast.py hold the two ways to the same bytes.
"""

from __future__ import annotations

import re

from kernels.names import OTHER
from pipelines.subjects import file_names as names_ref
from pipelines.subjects import rules as subject_rules


def _display_text(s: bytes) -> bytes:
    """`subject_rules.display_text(s)`: the identity as the poster wrote it, "" when it is
    posting tags alone. Most subjects have one shape, `<identity> [i/N] - "<file name>"
    yEnc (k/K)` (or a `File i of N:` counter, or none; text after the name; a name
    without quotes): for them what the parser blanks is found around the file name in a
    few passes (_common_shape); any other subject goes through the full rules."""
    common = _common_shape(s)
    if common is None:
        return subject_rules.display_text(s)
    kept, lowered = common
    if _SIZE_HINT.search(lowered):  # a hex hash has some: few are sizes
        blanked = bytearray(kept)
        for m in subject_rules.SIZE_RE.finditer(kept):
            blanked[m.start() : m.end()] = b" " * (m.end() - m.start())
        kept = bytes(blanked)
    text = _normalised(kept)
    # posting tags alone start with `[` or `-` and end with `]` or `-` (the rule tests
    # the case-folded text; ASCII folding commutes with normalising)
    tags_only = text and text[0] in b"[-" and text[-1] in b"]-"
    if tags_only and subject_rules.ONLY_TAGS_RE.fullmatch(text.lower()):
        return b""
    return text


def _common_shape(s: bytes) -> tuple[bytes, bytes] | None:
    """For a subject of the common shape, what the parser keeps of it (the parts it blanks
    each cut to one space, which normalising cannot tell apart) and that lower-cased;
    None for any other subject.

    The shape: the file name in one pair of quotes (the parser's name: the last quoted
    text), or without quotes the last token but the part counter (the parser's when it
    has a known extension: no later token has one); after it maybe text (quoted only),
    then maybe the word yEnc, the part counter `(k/K)` last (the parser's: the last one)
    and maybe bare numbers (Nyuu's file size); before it maybe a file counter, with only
    spaces and `-` to the name (then the last of its kind before the name: the parser's
    counter); a name without quotes has such a counter before it or nothing (else it may
    take in the words before it: `pipelines.subjects.file_names.reach_back`). Of what is
    kept, nothing the parser blanks may be left but sizes: no other yEnc, and without a
    file counter nothing a counter needs (`/`, ` of `)."""
    start = quoted = s.find(b'"')
    if start >= 0:
        closing = s.find(b'"', start + 1)
        if closing - start < 2:
            return None
        tail = _QUOTED_TAIL.match(s, closing + 1)  # no quote after the second
        if tail is None:
            return None
        after = tail.group(1)
    else:
        tail = _UNQUOTED_TAIL.search(s)
        if tail is None:
            return None
        name = tail.group(1)
        if name[0] in names_ref.TOKEN_LEAD:  # the parser would keep it: not the shape
            return None
        # (one it would keep at the end, `)` or `:`, leaves no known extension either)
        if b"." not in name or names_ref.classify(name)[0] == OTHER:
            return None
        start, after = tail.start(1), b""
        # a size can run into it (`12 MB.rar`), which what is kept would not show
        if start >= 2 and s[start - 2] in b"0123456789" and name[:1].lower() in b"bkmgt":
            return None
    lowered = s.lower()
    counter = None
    if b"file " in lowered:  # the first kind of counter, wherever it is, if any
        counter = _counter_before(_FILE_OF_THEN, s, lowered.rfind(b"file", 0, start), start)
        if counter is None and subject_rules.FILEOF_RE.search(s):
            return None
    if counter is None:
        counter = _counter_before(_BRACKET_THEN, s, s.rfind(b"[", 0, start), start)
    if counter is None:
        if quoted < 0 and s[:start].strip(b" "):
            return None  # words before a name without quotes: it may take them in
        head, between = s[:start], b""
    else:
        head, between = s[: counter.start()], counter.group(1)
    kept = b" ".join((head, between, after))
    kept_lowered = kept.lower()
    if b"yenc" in kept_lowered:
        return None
    if counter is None and (b"/" in kept or b" of " in kept_lowered):
        return None
    return kept, kept_lowered


def _counter_before(
    counter: re.Pattern[bytes], s: bytes, at: int, name_start: int
) -> re.Match[bytes] | None:
    """The counter at `at` if it and the spaces and `-` after it end where the name
    starts (at the last place before the name it can start: none can start later)."""
    m = counter.match(s, at) if at >= 0 else None
    return m if m is not None and m.end() == name_start else None


_WORD = subject_rules._WORD  # what the parser's word boundaries see as a word
_PART_LAST = (
    rb" *(?:(?<![" + _WORD + rb"])[Yy][Ee][Nn][Cc] *)?\([0-9]{1,9}/[0-9]{1,9}\)(?: +[0-9]+)* *\Z"
)
_QUOTED_TAIL = re.compile(rb'([^"]*?)' + _PART_LAST)
_UNQUOTED_TAIL = re.compile(rb" ([^ ]+) " + _PART_LAST)
# a file counter (subject_rules.BRACKET_RE, FILEOF_RE) and the spaces and `-` after it
_BRACKET_THEN = re.compile(rb"\[ *[0-9]{1,9}(?:/| +[Oo][Ff] +)[0-9]{1,9} *\]([ -]*)")
_FILE_OF_THEN = re.compile(
    rb"(?<![" + _WORD + rb"])[Ff][Ii][Ll][Ee] +[0-9]{1,9} +[Oo][Ff] +[0-9]{1,9}:?([ -]*)"
)
# a size ends in a digit, maybe a space, and a unit's first letter
_SIZE_HINT = re.compile(rb"[0-9] ?[bkmgt]")
_EMPTY_BRACKETS = re.compile(rb"\( *\)|\[ *\]|\{ *\}")
_SPACE_RUN = re.compile(rb" +")
_OTHER_SPACES = b"\t\n\r\x0b\x0c"
# a run of tokens of `-` alone: each starts after a space or at the start (the look-behind
# after the first `-`, so that the regex engine skips from `-` to `-`), and ends before a
# space or at the end
_DASH_RUN = re.compile(rb"-(?<![^ ]-)-*(?: -+)*(?![^ ])")


def _normalised(kept: bytes) -> bytes:
    """`subject_rules.normalise(kept, fold=False)` in C-level passes: brackets left empty
    dropped (a pair emptied by that too), spaces collapsed, each run of `-` tokens one
    `-` between words and none at either end."""
    dropped = int(b")" in kept or b"]" in kept or b"}" in kept)  # most have no bracket
    while dropped:  # dropping a pair can leave its enclosing pair empty
        kept, dropped = _EMPTY_BRACKETS.subn(b" ", kept)
    if len(kept.translate(None, _OTHER_SPACES)) == len(kept):
        text = b" ".join(kept.split())  # split() splits at space and at _OTHER_SPACES
    else:
        text = _SPACE_RUN.sub(b" ", kept).strip(b" ")
    if text[:1] == b"-" or b" -" in text:
        text = _DASH_RUN.sub(b"-", text)
        if text[:2] == b"- ":
            text = text[2:]
        elif text == b"-":
            return b""
        if text[-2:] == b" -":
            text = text[:-2]
    return text
