"""Plain-Python reference of kernels.subject: the same rules, written with regexes.

Also the home of `identity_text`, the normalised release identity whose hash is
identity_key: naming.py shows it to people, so both sides agree by construction.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from kernels import subject as k
from kernels.reference.hashing import hash_bytes

_WORD = rb"A-Za-z0-9_\x80-\xff"
PART_RE = re.compile(rb"\((\d{1,9})/(\d{1,9})\)")
FILEOF_RE = re.compile(
    rb"(?<![" + _WORD + rb"])[Ff][Ii][Ll][Ee] +(\d{1,9}) +[Oo][Ff] +(\d{1,9})(?!\d):?"
)
BRACKET_RE = re.compile(rb"\[ *(\d{1,9})(?:/| +[Oo][Ff] +)(\d{1,9}) *\]")
PAREN_RE = re.compile(rb"\( *(\d{1,9})(?:/| +[Oo][Ff] +)(\d{1,9}) *\)")
BRACE_RE = re.compile(rb"\{ *(\d{1,9})(?:/| +[Oo][Ff] +)(\d{1,9}) *\}")
LOOSE_RE = re.compile(
    rb"(?<![" + _WORD + rb"/.,(\[{])(\d{1,9})/(\d{1,9})(?![" + _WORD + rb"/.,)\]}])"
)
SIZE_RE = re.compile(
    rb"(?<![" + _WORD + rb".,])\d+(?:[.,]\d+)* ?"
    rb"(?:bytes|kib|mib|gib|tib|kb|mb|gb|tb|b)(?![" + _WORD + rb"])",
    re.IGNORECASE,
)
YENC_RE = re.compile(rb"(?<![" + _WORD + rb"])yenc(?![" + _WORD + rb"])", re.IGNORECASE)
PAR2_VOL_RE = re.compile(rb"\.vol(\d{1,6})[+-](\d{1,6})\.par2$")
PART_RAR_RE = re.compile(rb"\.part(\d{1,4})\.rar$")
SEVEN_Z_VOL_RE = re.compile(rb"\.7z\.(\d{3})$")
NUMBERED_RE = re.compile(rb"\.(\d{3})$")
R_VOL_RE = re.compile(rb"\.r(\d{2,3})$")
Z_VOL_RE = re.compile(rb"\.z(\d{2})$")
EXT_RE = re.compile(rb"\.([a-z0-9]{2,4})$")
UUID_RE = re.compile(
    rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
HEX = frozenset(b"0123456789abcdefABCDEF")
B64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
VOWELS = frozenset(b"aeiouyAEIOUY")
TOKEN_LEAD = b"([{<"
TOKEN_TRAIL = b")]}>:,;"


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


def classify(name: bytes) -> tuple[int, int, int]:
    """(ext_class, volume, length of the archive/volume suffix to strip, 0 if none)."""
    n = name.lower()
    if n.endswith(b".par2"):
        m = PAR2_VOL_RE.search(n)
        if m:
            return k.PAR2_VOL, int(m.group(1)), len(m.group(0))
        return k.PAR2_INDEX, -1, 5
    m = PART_RAR_RE.search(n)
    if m:
        vol = int(m.group(1))
        return (k.RAR_FIRST if vol == 1 else k.ARCHIVE_VOL), vol, len(m.group(0))
    if n.endswith(b".rar"):
        return k.RAR_FIRST, -1, 4
    for rx in (SEVEN_Z_VOL_RE, NUMBERED_RE):
        m = rx.search(n)
        if m:
            vol = int(m.group(1))
            return (k.RAR_FIRST if vol == 1 else k.ARCHIVE_VOL), vol, len(m.group(0))
    for rx in (R_VOL_RE, Z_VOL_RE):
        m = rx.search(n)
        if m:
            return k.ARCHIVE_VOL, int(m.group(1)), len(m.group(0))
    m = EXT_RE.search(n)
    if m:
        ext = m.group(1).decode()
        cls = k.EXTENSIONS.get(ext, k.OTHER)
        strip = len(m.group(0)) if ext in k.STRIPPED_EXTENSIONS else 0
        return cls, -1, strip
    return k.OTHER, -1, 0


def stem(name: bytes) -> bytes:
    """The name without its archive and volume suffixes (repeatedly: `x.rar.par2` -> `x`)."""
    s = name
    while s:
        strip = classify(s)[2]
        if strip == 0:
            break
        s = s[: len(s) - strip]
    return s


def _name(s: bytes) -> tuple[int, int, int, int]:
    """(name_start, name_end, removal_start, removal_end) or all -1."""
    quotes = [i for i, c in enumerate(s) if c == 0x22]
    best = None
    for j in range(0, len(quotes) - 1, 2):
        a, b = quotes[j], quotes[j + 1]
        if b - a > 1:
            best = (a + 1, b, a, b + 1)
    if best:
        return best
    for m in re.finditer(rb'[^ "]+', s):
        a, b = m.start(), m.end()
        while a < b and s[a] in TOKEN_LEAD:
            a += 1
        while b > a and s[b - 1] in TOKEN_TRAIL:
            b -= 1
        if a < b and classify(s[a:b])[0] != k.OTHER:
            best = (a, b, a, b)
    return best or (-1, -1, -1, -1)


def _file_counter(s: bytes, part_span: tuple[int, int], anchor: int):
    """(index, total, start, end) of the file counter, or None."""
    kinds = [
        list(FILEOF_RE.finditer(s)),
        list(BRACKET_RE.finditer(s)),
        [m for m in PAREN_RE.finditer(s) if m.start() != part_span[0]],
        list(BRACE_RE.finditer(s)),
        [m for m in LOOSE_RE.finditer(s) if int(m.group(1)) <= int(m.group(2))],
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


def random_token(t: bytes) -> bool:
    """Does this one token (a file stem, a whole subject) look like a random string?"""
    n = len(t)
    if any(c >= 0x80 for c in t):
        return False  # UTF-8 letters: a title in another script, not noise
    if n >= 16 and all(c in HEX for c in t):
        return True
    if n == 36 and UUID_RE.fullmatch(t):
        return True
    if n < 12 or not t.isalnum():
        return False
    runs = 1 + sum(1 for a, b in itertools.pairwise(t) if _cls(a) != _cls(b))
    letters = sum(1 for c in t if chr(c).isalpha())
    wordlike = sum(len(w) for w in _words(t) if _wordlike(w))
    if runs >= 6 and runs * 3 >= n and wordlike * 4 < letters * 3:
        return True
    return letters >= 8 and wordlike * 5 < letters * 2


def _cls(c: int) -> int:
    return 0 if 48 <= c <= 57 else (1 if 65 <= c <= 90 else 2)


def _words(t: bytes) -> list[bytes]:
    """Letter runs, split where a lower-case letter meets an upper-case one (CamelCase)."""
    return re.findall(rb"[A-Z]*[a-z]+|[A-Z]+", t)


def _wordlike(w: bytes) -> bool:
    vowels = sum(1 for c in w if c in VOWELS)
    clusters = re.findall(rb"[^aeiouyAEIOUY]+", w)
    longest = max((len(c) for c in clusters), default=0)
    return len(w) >= 3 and vowels * 5 >= len(w) and longest <= 4


def random_subject(s: bytes) -> bool:
    body = s.strip(b" ")
    private = body[:9].lower() == b"[private]"
    if private:
        body = body[9:].lstrip(b" ")
    if b" " in body or len(body) < 16:
        return False
    if all(c in HEX or c == 0x2D for c in body) and sum(c in HEX for c in body) >= 16:
        return True
    if all(c in B64 for c in body):
        return private or random_token(body.rstrip(b"="))
    return False


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
    p.identity_key = key_of(identity) if identity else 0
    return p, identity


def parse_kept(s: bytes) -> tuple[Parsed, bytes]:
    """All fields but identity_key, and the subject with its file parts blanked out."""
    p = Parsed()
    parts = list(PART_RE.finditer(s))
    part_span = (-1, -1)
    if parts:
        m = parts[-1]
        p.part, p.part_total = int(m.group(1)), int(m.group(2))
        part_span = m.span()
    ns, ne, rs, re_ = _name(s)
    counter = _file_counter(s, part_span, rs)
    counter_span = (-1, -1)
    if counter:
        p.file_index, p.file_total, c0, c1 = counter
        counter_span = (c0, c1)
    # the text before the part counter seeds the hash of the text after it
    if parts:
        p.file_key = key_of(s[part_span[1] :], hash_bytes(s[: part_span[0]]))
    else:
        p.file_key = key_of(s)
    p.has_yenc = YENC_RE.search(s) is not None
    if ns >= 0:
        p.name_start, p.name_end = ns, ne
        name = s[ns:ne]
        p.ext_class, p.volume, _ = classify(name)
        st = stem(name)
        p.stem_key = key_of(st.lower()) if st else 0
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
    but for ASCII case."""
    return normalise(parse_kept(s)[1], fold=False)
