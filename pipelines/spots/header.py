"""A spot's overview line: its From header and its Subject.

`From: Nick <MODULUS.USERSIG@<cat+1><keyid><subcats>.<size>.<n>.<time>.<id>.<value>.<SIG>>`

After the `@` come dotted fields: the first packs one digit of head category (plus one),
one digit of key id, then sub-categories (a letter and its number: `a09b04d11`); then the
size in bytes, a number clients set to 10 or 20, the posting time, two fields clients
fill as they like (`1`, `NL`), and last the header's signature. Before the `@`, the
spotter's modulus and its signature of the message-id (older spots: a random token, or
nothing). Everything stays bytes: signatures are checked over the bytes as posted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# fewer dotted fields than this after the `@` is not a spot (a plain `x@spot.net`)
MIN_FIELDS = 6
_SUBCAT = re.compile(rb"([a-z])(\d+)")


class NotASpot(ValueError):
    """The From header is not in a spot's form: `reason` names what is wrong."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class SpotFrom:
    nickname: bytes  # the poster's name as posted (signed)
    modulus_text: bytes  # before the `@` and its first dot: the spotter's key (key 7)
    user_signature_text: bytes  # after that dot: the signature of `<message-id>`, if any
    header: bytes  # everything after the `@`
    category: int  # head category: 0 image, 1 sound, 2 games, 3 apps
    key_id: int
    subcats: list[str] = field(default_factory=list)  # "a9", "b4", "z1", ...
    size: int = 0
    created: int = 0  # the posting time the header states
    custom: tuple[bytes, bytes] = (b"", b"")  # the two free fields (`1`, `NL`)
    header_signature: bytes = b""  # the last dotted field

    @property
    def signed_header(self) -> bytes:
        """The header less its signature: what the header signature signs, with the
        title before it and the nickname after."""
        if not self.header_signature:
            return self.header
        return self.header[: len(self.header) - len(self.header_signature) - 1]


def parse_from(value: bytes) -> SpotFrom:
    """The spot's fields in its From header (the value, without `From: `)."""
    value = value.strip()
    at_angle = value.find(b"<")
    if at_angle < 0 or not value.endswith(b">"):
        raise NotASpot("no_address")
    # the nickname ends one space before `<` (what the header signature signs)
    end = at_angle - 1 if at_angle > 0 and value[at_angle - 1 : at_angle] == b" " else at_angle
    nickname = value[:end]
    local, at, header = value[at_angle + 1 : -1].partition(b"@")
    if not at:
        raise NotASpot("no_at")
    fields = header.split(b".")
    if len(fields) < MIN_FIELDS or len(fields[0]) < 2:
        raise NotASpot("missing_fields")
    head = fields[0]
    if not head[:2].isdigit() or not fields[1].isdigit() or not fields[3].isdigit():
        raise NotASpot("bad_fields")
    modulus_text, _, user_signature = local.partition(b".")
    return SpotFrom(
        nickname=nickname,
        modulus_text=modulus_text,
        user_signature_text=user_signature,
        header=header,
        category=int(head[:1]) - 1,
        key_id=int(head[1:2]),
        subcats=[f"{m[0].decode()}{int(m[1])}" for m in _SUBCAT.findall(head[2:].lower())],
        size=int(fields[1]),
        created=int(fields[3]),
        custom=(fields[4], fields[5] if len(fields) > 6 else b""),
        header_signature=fields[-1] if len(fields) > 6 else b"",
    )


def parse_subject(subject: bytes, key_id: int) -> tuple[bytes, bytes]:
    """(title, tag) of a spot's Subject `Title | Tag`: signed spots put the title before
    the first `|`; spots from before signing (key 1) the tag after the last."""
    if key_id != 1:
        title, _, tag = subject.partition(b"|")
        return title.strip(), tag.strip()
    title, bar, tag = subject.rpartition(b"|")
    return (title.strip(), tag.strip()) if bar else (subject.strip(), b"")
