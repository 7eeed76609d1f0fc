"""Subject lines in the styles real posters use, split around the segment counter.

A style is a template; `{k}` marks the segment number, so a file's subjects are built
as `head + str(k) + tail` per segment without formatting each one. The templates are
shapes seen in real binary groups (see data/subjects): `[i/N]`, `(i/N)`, `File i of N`,
quoted and unquoted file names, the release name before or after the counter, size
text, `yEnc (k/K)` with and without the word yEnc.
"""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass

_K = "\x00"  # where the segment number goes
_B_PIECE = 36  # UTF-8 bytes a base64 word carries: 48 characters, a word under 75


@dataclass(frozen=True)
class Style:
    name: str
    template: str
    has_name: bool  # the release name is in the subject
    has_counter: bool  # a file counter [i/N] (a file total) is in the subject


STYLES = (
    Style("nyuu", '{name} [{i}/{n}] - "{file}" yEnc ({k}/{K}) {fsize}', True, True),
    Style("bracket", '{name} [{i}/{n}] - "{file}" yEnc ({k}/{K})', True, True),
    Style("dash", '{name} - [{i}/{n}] - "{file}" yEnc ({k}/{K})', True, True),
    Style("size_after", '[{i}/{n}] - "{file}" - [{size}] -  yEnc ({k}/{K})', False, True),
    Style("paren", '({i}/{n}) "{file}" - {size} - yEnc ({k}/{K})', False, True),
    Style("file_of", '{name} - File {i} of {n}: "{file}" yEnc ({k}/{K})', True, True),
    Style(
        "efnet",
        '[{post}]-[FULL]-[#a.b.{board}@EFNet]-[ {name} ]-[{i}/{n}] - "{file}" yEnc ({k}/{K})',
        True,
        True,
    ),
    Style("name_after", '[{i}/{n}] - "{file}" - {name} yEnc ({k}/{K})', True, True),
    Style("no_yenc", '{name} [{i}/{n}] - "{file}" ({k}/{K})', True, True),
    Style("unquoted", "{name} - [{i}/{n}] - {file} yEnc ({k}/{K})", True, True),
    Style(
        "town",
        '<TOWN> www.town.ag > sponsored by www.ssl-news.info > ({i}/{n}) "{file}" - {size} - '
        "yEnc ({k}/{K})",
        False,
        True,
    ),
    Style("paren_name", '({name}) [{i}/{n}] - "{file}" yEnc ({k}/{K})', True, True),
    Style("count_after", '"{file}" [{i}/{n}] yEnc ({k}/{K})', False, True),
    Style("bare", '"{file}" yEnc ({k}/{K})', False, False),
    Style("bare_no_yenc", '"{file}" ({k}/{K})', False, False),
    Style("named_bare", '{name} - "{file}" yEnc ({k}/{K})', True, False),
)
BY_NAME = {s.name: s for s in STYLES}
NAMED = tuple(s for s in STYLES if s.has_name)


def size_text(size: int, comma: bool) -> str:
    """`1.46 GB` / `346,71 MB` as posters print a release's size."""
    value, unit = (size / 2**30, "GB") if size >= 2**30 else (size / 2**20, "MB")
    text = f"{value:.2f} {unit}"
    return text.replace(".", ",") if comma else text


def split_template(
    style: Style,
    name: str,
    file_name: str,
    index: int,
    total: int,
    part_total: int,
    extra: dict[str, str],
) -> tuple[str, str]:
    """The subject of one file around its segment number: (head, tail)."""
    width = max(2, len(str(total)))
    text = style.template.format(
        name=name,
        file=file_name,
        i=f"{index:0{width}d}",
        n=f"{total:0{width}d}",
        k=_K,
        K=part_total,
        **extra,
    )
    head, tail = text.split(_K)
    return head, tail


def encoded_word_b(text: str) -> str:
    """RFC 2047 base64 words, split on character boundaries (a word stays under 75 chars)."""
    return " ".join(_b64(piece) for piece in _pieces(text, _B_PIECE))


def encoded_words_b(head: str, ks: list[int], tail: str) -> list[str]:
    """`encoded_word_b(f"{head}{k}{tail}")` for each k, encoding the shared start once.

    Pieces are cut greedily from the start, so every piece that ends inside `head`
    before its last piece is the same for all k.
    """
    fixed = _pieces(head, _B_PIECE)[:-1]
    done = sum(len(p) for p in fixed)
    prefix = "".join(f"{_b64(p)} " for p in fixed)
    rest = head[done:]
    return [prefix + encoded_word_b(f"{rest}{k}{tail}") for k in ks]


def _b64(piece: str) -> str:
    return f"=?UTF-8?B?{base64.b64encode(piece.encode()).decode()}?="


def encoded_word_q(text: str) -> str:
    """RFC 2047 Q words: `_` for space, `=XX` for everything outside plain ASCII letters."""
    out = []
    for piece in _pieces(text, 20):
        q = "".join(
            "_"
            if c == " "
            else c
            if c.isascii() and c.isalnum()
            else "".join(f"={b:02X}" for b in c.encode())
            for c in piece
        )
        out.append(f"=?UTF-8?Q?{q}?=")
    return " ".join(out)


def _pieces(text: str, max_bytes: int) -> list[str]:
    """Cut text into pieces of at most max_bytes of UTF-8, never inside a character."""
    if text.isascii():
        return [text[i : i + max_bytes] for i in range(0, len(text), max_bytes)]
    raw = text.encode()
    pieces = []
    start = 0
    while start < len(raw):
        end = min(start + max_bytes, len(raw))
        while end < len(raw) and raw[end] & 0xC0 == 0x80:  # a continuation byte
            end -= 1
        pieces.append(raw[start:end].decode())
        start = end
    return pieces


def on_wire(text: str, encoding: str) -> str:
    """The bytes a subject is posted as, one character a byte (code points 0-255).

    Lines are joined as such strings and encoded with `latin-1` at the end, a plain copy
    of each byte: `latin1` posters send their text as ISO-8859-1 bytes (not valid UTF-8),
    everyone else sends UTF-8.
    """
    if text.isascii():
        return text
    if encoding == "latin1":
        text.encode("latin-1")  # raises on a character Latin-1 cannot carry
        return text
    return text.encode("utf-8").decode("latin-1")


def pick_style(rng: random.Random, needs_name: bool, needs_counter: bool = False) -> Style:
    return rng.choice([s for s in STYLES if fits(s, needs_name, needs_counter)])


def fits(style: Style, needs_name: bool, needs_counter: bool) -> bool:
    return (style.has_name or not needs_name) and (style.has_counter or not needs_counter)
