"""Plain-Python reference of kernels.subject: the same rules, written with regexes.

Also the home of `identity_text`, the normalised release identity whose hash is
identity_key, and of `display_text`, the same identity with its case kept that pipelines.naming
shows to people: both blank the same parts of a subject (display_text without the rest
of the parse; tests/test_naming.py holds it to parse_kept's blanking).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kernels import subject as k
from pipelines.subjects.file_names import (
    TOKEN_LEAD,
    TOKEN_TRAIL,
    _name,
    classify,
    name_bound,
    random_subject,
    random_token,
    reach_back,
    stem,
)
from pipelines.subjects.hashing import hash_bytes

_WORD = rb"A-Za-z0-9_\x80-\xff"
# posting tags alone are no release identity: `[private] - [full] [12345] [#a.b.x@efnet]`
ONLY_TAGS_RE = re.compile(
    rb"(?:[ -]|\[ *(?:private|full|repost|req|request|[0-9#]+|#[^\[\]]*|[^\[\]]*@[^\[\]]*) *\])*"
)
PART_RE = re.compile(rb"\((\d{1,9})/(\d{1,9})\)")
FILEOF_RE = re.compile(
    rb"(?<![" + _WORD + rb"])[Ff][Ii][Ll][Ee] +(\d{1,9}) +[Oo][Ff] +(\d{1,9})(?!\d):?"
)
_UNIT = rb"(?i:bytes|kib|mib|gib|tib|kb|mb|gb|tb|b)(?![" + _WORD + rb"])"
# the file's size after a counter inside its brackets: `[41 of 76 - 10013 kb]`
_SIZE_IN = rb"(?:- *\d+(?:[.,]\d+)* ?" + _UNIT + rb" *)?"
# `i/N` with spaces or none around the `/` (`[02/ 50]`), or `i of N`
_COUNT = rb" *(\d{1,9})(?: */ *| +[Oo][Ff] +)(\d{1,9}) *" + _SIZE_IN
_COUNT_AHEAD = rb" *\d{1,9}(?: */ *| +[Oo][Ff] +)\d{1,9} *" + _SIZE_IN + rb"\]"
# `[i/N]`, and with mismatched brackets `[i/N)` and `(i/N]` (a `(` only with a `]`)
BRACKET_RE = re.compile(rb"(?:\[|\((?=" + _COUNT_AHEAD + rb"))" + _COUNT + rb"[\])]")
PAREN_RE = re.compile(rb"\(" + _COUNT + rb"\)")
BRACE_RE = re.compile(rb"\{" + _COUNT + rb"\}")
# (a `]` may close it alone: `XviD German 01/43] - "Name.par2"`)
LOOSE_RE = re.compile(
    rb"(?<![" + _WORD + rb"/.,(\[{])(\d{1,9})/(\d{1,9})(?![" + _WORD + rb"/.,)}])"
)
# a bare `i of N`; bare_of says which stand between separators
BARE_OF_RE = re.compile(
    rb"(?<![" + _WORD + rb"])(\d{1,9}) +[Oo][Ff] +(\d{1,9})(?![" + _WORD + rb"])"
)
_SEPARATOR_AFTER = frozenset(b'-])}:"')
SIZE_RE = re.compile(
    rb"(?<![" + _WORD + rb".,])\d+(?:[.,]\d+)* ?"
    rb"(?:bytes|kib|mib|gib|tib|kb|mb|gb|tb|b)(?![" + _WORD + rb"])",
    re.IGNORECASE,
)
YENC_RE = re.compile(rb"(?<![" + _WORD + rb"])yenc(?![" + _WORD + rb"])", re.IGNORECASE)


@dataclass
class Parsed:
    part: int = -1
    part_total: int = -1
    file_index: int = -1
    file_total: int = -1
    name_start: int = -1
    name_end: int = -1
    file_key: int = 0
    identity_key: int = 0
    stem_key: int = 0
    ext_class: int = k.NONE
    volume: int = -1
    random_name: bool = False
    random_subject: bool = False
    has_yenc: bool = False


def key_of(b: bytes, seed: int = 0) -> int:
    """A key is never 0: 0 means 'none'."""
    return hash_bytes(b, seed) or 1


def bare_of(s: bytes, found, name_span: tuple[int, int]) -> list[re.Match[bytes]]:
    """The BARE_OF_RE matches that are file counters: i <= N, outside the file name
    (`name_span`, its removal span), after the subject's start, a `-` or an opening
    bracket, before its end, a `-`, a closing bracket, `:`, a quote, a `(k/K)` or the word
    yEnc (spaces between): `DivX - 28 of 48 -`, not a title's `Disc 5 of 5 - 13`."""
    kept = []
    for m in found:
        if int(m.group(1)) > int(m.group(2)) or name_span[0] <= m.start() < name_span[1]:
            continue
        before = s[: m.start()].rstrip(b" ")
        if before and before[-1] not in b"-[({":
            continue
        after = s[m.end() :].lstrip(b" ")
        if after and not (
            after[0] in _SEPARATOR_AFTER or PART_RE.match(after) or YENC_RE.match(after) is not None
        ):
            continue
        kept.append(m)
    return kept


def _file_counter(s: bytes, part_span: tuple[int, int], anchor: int, name_end: int = -1):
    """(index, total, start, end) of the file counter, or None."""
    kinds = [
        list(FILEOF_RE.finditer(s)),
        list(BRACKET_RE.finditer(s)),
        [m for m in PAREN_RE.finditer(s) if m.start() != part_span[0]],
        list(BRACE_RE.finditer(s)),
        [m for m in LOOSE_RE.finditer(s) if int(m.group(1)) <= int(m.group(2))],
        bare_of(s, BARE_OF_RE.finditer(s), (anchor, name_end)),
    ]
    for found in kinds:
        if not found:
            continue
        if anchor < 0:
            m = found[-1]
        else:
            before = [m for m in found if m.end() <= anchor]
            m = before[-1] if before else found[0]
        return int(m.group(1)), int(m.group(2)), m.start(), m.end()
    return None


def _removals(s: bytes, p: Parsed, part_span, counter_span, name_span) -> list[tuple[int, int]]:
    spans = [m.span() for m in SIZE_RE.finditer(s)]
    spans += [m.span() for m in YENC_RE.finditer(s)]
    for span in (part_span, counter_span, name_span):
        if span[0] >= 0:
            spans.append(span)
    if part_span[0] >= 0:  # Nyuu writes the file size as a bare number after the counter
        for m in re.finditer(rb"[^ ]+", s[part_span[1] :]):
            if m.group(0).isdigit():
                spans.append((m.start() + part_span[1], m.end() + part_span[1]))
    return spans


def normalise(kept: bytes, fold: bool = True) -> bytes:
    """Drop brackets left empty, collapse spaces and `-` separators, strip, fold case."""
    out = bytearray()
    pairs = {0x29: 0x28, 0x5D: 0x5B, 0x7D: 0x7B}
    for c in kept:
        if c in pairs:
            j = len(out) - 1
            while j >= 0 and out[j] == 0x20:
                j -= 1
            if j >= 0 and out[j] == pairs[c]:
                del out[j:]
                out.append(0x20)
                continue
        out.append(c)
    result: list[bytes] = []
    pending = False
    for tok in bytes(out).split(b" "):
        if not tok:
            continue
        if tok.strip(b"-") == b"":
            pending = bool(result)
            continue
        if pending:
            result.append(b"-")
            pending = False
        result.append(tok.lower() if fold else tok)
    return b" ".join(result)


def parse(s: bytes) -> tuple[Parsed, bytes]:
    """All fields of one subject, and its identity text."""
    p, kept = parse_kept(s)
    identity = normalise(kept)
    if ONLY_TAGS_RE.fullmatch(identity):
        identity = b""
    p.identity_key = key_of(identity) if identity else 0
    return p, identity


def parse_kept(s: bytes, keys: bool = True) -> tuple[Parsed, bytes]:
    """All fields but identity_key, and the subject with its file parts blanked out
    (keys=False: file_key and stem_key left 0, for callers that only show text)."""
    p = Parsed()
    parts = list(PART_RE.finditer(s))
    part_span = (-1, -1)
    if parts:
        m = parts[-1]
        p.part, p.part_total = int(m.group(1)), int(m.group(2))
        part_span = m.span()
    ns, ne, rs, re_ = _name(s)
    counter = _file_counter(s, part_span, rs, re_)
    counter_span = (-1, -1)
    if counter:
        p.file_index, p.file_total, c0, c1 = counter
        counter_span = (c0, c1)
    if ns >= 0 and rs == ns:  # not quoted: its words before its last token, maybe
        ns = rs = reach_back(s, ns, ne, *name_bound(s, ns, part_span, counter_span))
    # the text before the part counter seeds the hash of the text after it
    if not keys:
        pass
    elif parts:
        p.file_key = key_of(s[part_span[1] :], hash_bytes(s[: part_span[0]]))
    else:
        p.file_key = key_of(s)
    p.has_yenc = YENC_RE.search(s) is not None
    if ns >= 0:
        p.name_start, p.name_end = ns, ne
        name = s[ns:ne]
        p.ext_class, p.volume, _ = classify(name)
        st = stem(name)
        p.stem_key = key_of(st.lower()) if st and keys else 0
        p.random_name = random_token(st)
    else:
        rest = (s[: part_span[0]] + s[part_span[1] :]) if parts else s
        rest = rest.strip(b" ")
        p.random_name = bool(rest) and b" " not in rest and random_token(rest)
    kept = bytearray(s)
    for a, b in _removals(s, p, part_span, counter_span, (rs, re_)):
        kept[a:b] = b" " * (b - a)
    p.random_subject = p.part < 0 and p.file_index < 0 and random_subject(s)
    return p, bytes(kept)


def identity_text(s: bytes) -> bytes:
    return parse(s)[1]


def display_text(s: bytes) -> bytes:
    """The identity as the poster wrote it (case kept): equal identities, equal texts
    but for ASCII case; "" when it is posting tags alone.

    Called once per release name, it blanks only what parse_kept blanks, without the
    parser's other fields (keys, flags, the file name's class and stem), and checks for
    a regex's text before running it. bench.naming_reference.display_text is the
    plain version (parse_kept, then normalise); tests/test_naming.py compares the two."""
    kept = bytearray(s)
    for a, b in _display_removals(s):
        kept[a:b] = b" " * (b - a)
    text = _normalised(bytes(kept))
    # the reference tests the case-folded text; ASCII folding commutes with normalising
    if ONLY_TAGS_RE.fullmatch(text.lower()):
        return b""
    return text


def _display_removals(s: bytes) -> list[tuple[int, int]]:
    """_removals without the parse: the spans the identity leaves out (sizes, yEnc, the
    part counter, the file counter, the file name, a bare number after the part counter)."""
    lowered = s.lower()
    spans = _yenc_spans(s, lowered)
    if _SIZE_HINT.search(s):
        spans += [m.span() for m in SIZE_RE.finditer(s)]
    part = (-1, -1)
    for m in PART_RE.finditer(s):
        part = m.span()  # the last one is the segment counter
    name = _name_removal(s)
    counter = _counter_span(s, lowered, part[0], name)
    if name[0] >= 0 and s[name[0]] != 0x22:  # not quoted: as parse_kept reaches back
        name = (reach_back(s, name[0], name[1], *name_bound(s, name[0], part, counter)), name[1])
    for span in (part, counter, name):
        if span[0] >= 0:
            spans.append(span)
    if part[0] >= 0:
        spans += [m.span() for m in _TOKEN.finditer(s, part[1]) if m.group().isdigit()]
    return spans


# a size ends in a digit, maybe a space, and a unit; unlike SIZE_RE (which starts with a
# look-behind) this starts with a character class, which the regex engine skips to fast
_SIZE_HINT = re.compile(rb"\d ?[bkmgt]", re.IGNORECASE)
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") | (
    frozenset(range(0x80, 0x100))
)


def _yenc_spans(s: bytes, lowered: bytes) -> list[tuple[int, int]]:
    """YENC_RE's matches: the word yEnc in any ASCII case, not inside a longer word (it
    cannot overlap itself)."""
    spans = []
    at = lowered.find(b"yenc")
    while at >= 0:
        end = at + 4
        if (at == 0 or s[at - 1] not in _WORD_BYTES) and (
            end == len(s) or s[end] not in _WORD_BYTES
        ):
            spans.append((at, end))
        at = lowered.find(b"yenc", at + 1)
    return spans


_TOKEN = re.compile(rb"[^ ]+")
_NAME_TOKEN = re.compile(rb'[^ "]+')


def _name_removal(s: bytes) -> tuple[int, int]:
    """The span of the file name with its quotes (pipelines.subjects.file_names._name's
    removal span): the last non-empty quoted text with a known extension, else the last
    non-empty quoted text, else the last token with a known extension, brackets around
    it trimmed (without reaching back); (-1, -1) if none."""
    quotes = []
    at = s.find(b'"')
    while at >= 0:
        quotes.append(at)
        at = s.find(b'"', at + 1)
    last = None
    for j in range(len(quotes) // 2 * 2 - 2, -1, -2):
        if quotes[j + 1] - quotes[j] > 1:
            span = quotes[j], quotes[j + 1] + 1
            if classify(s[span[0] + 1 : span[1] - 1])[0] != k.OTHER:
                return span
            last = last or span
    if last:
        return last
    for m in reversed(list(_NAME_TOKEN.finditer(s))):
        token = m.group()
        if b"." not in token:  # every known extension starts with a dot
            continue
        lead = token.lstrip(TOKEN_LEAD)
        a = m.end() - len(lead)
        b = a + len(lead.rstrip(TOKEN_TRAIL))
        if a < b and classify(s[a:b])[0] != k.OTHER:
            return a, b
    return -1, -1


def _counter_span(
    s: bytes, lowered: bytes, part_start: int, name: tuple[int, int]
) -> tuple[int, int]:
    """The file counter's span, as _file_counter finds it: of the first kind present, the
    last one before the name (`name`: its removal span; else the first after it; the last
    one when there is no name); (-1, -1) if none."""
    anchor = name[0]
    for kind, rx in enumerate(_COUNTER_KINDS):
        text = lowered if kind in (0, 5) else s
        if not any(need in text for need in _COUNTER_NEEDS[kind]):
            continue
        found = list(rx.finditer(s))
        if kind == 2:  # (i/N) but the part counter
            found = [m for m in found if m.start() != part_start]
        elif kind == 4:  # a bare i/N with i <= N
            found = [m for m in found if int(m.group(1)) <= int(m.group(2))]
        elif kind == 5:  # a bare i of N between separators
            found = bare_of(s, found, name)
        if not found:
            continue
        if anchor < 0:
            return found[-1].span()
        before = [m for m in found if m.end() <= anchor]
        return (before[-1] if before else found[0]).span()
    return -1, -1


_COUNTER_KINDS = (FILEOF_RE, BRACKET_RE, PAREN_RE, BRACE_RE, LOOSE_RE, BARE_OF_RE)
# what each kind cannot match without (the first and last tested on the lower-cased subject)
_COUNTER_NEEDS = ((b"file ",), (b"[", b"]"), (b"(",), (b"{",), (b"/",), (b" of ",))
_EMPTY_BRACKETS = re.compile(rb"\( *\)|\[ *\]|\{ *\}")


def _normalised(kept: bytes) -> bytes:
    """`normalise(kept, fold=False)` by regex: brackets left empty dropped (a pair emptied
    by that too), spaces and `-` separators collapsed."""
    dropped = 1
    while dropped:  # dropping a pair can leave its enclosing pair empty
        kept, dropped = _EMPTY_BRACKETS.subn(b" ", kept)
    result: list[bytes] = []
    pending = False
    for token in kept.split(b" "):
        if not token:
            continue
        if not token.strip(b"-"):
            pending = bool(result)
            continue
        if pending:
            result.append(b"-")
            pending = False
        result.append(token)
    return b" ".join(result)
