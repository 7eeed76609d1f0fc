"""Every signature a spot carries, checked over its bytes as posted.

- The header signature (the From header's last field) signs the title, the header less
  that field, and the nickname. Keys 2-4 are Spotnet's own; key 7 is the spotter's, the
  modulus before the `@`, and counts only with a hashcash (the SHA-1 of `<message-id>`
  starts `0000`); a key-2 message of size 999 with the spotter's modulus is a personal
  delete, checked the same way.
- The user signature (after the modulus in From, and X-User-Signature) signs
  `<message-id>` with the spotter's key (X-User-Key, the same modulus).
- The X-XML-Signature signs the X-XML document with that key.
Spots from before 2011 with key 1 may carry no signature; any later one must.

Beyond Spotweb: the full spot's X-User-Key must be the From header's modulus, and the
Subject's title and tag must be the document's (the tag is signed only there).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from pipelines.naming import to_text
from pipelines.spots.article import BadSpotXml, SpotHead, SpotXml, parse_spot_xml, user_key_modulus
from pipelines.spots.encoding import BadBase64, spot_b64decode, spotter_id
from pipelines.spots.header import NotASpot, SpotFrom, parse_from, parse_subject
from pipelines.spots.signing import (
    KEY_LEGACY,
    KEY_MODERATOR,
    KEY_SELF_SIGNED,
    BadKey,
    has_hashcash,
    public_key,
    spotnet_key,
    verifies,
)

# 2011-01-01: spots after this must be signed (Spotweb's line)
SIGNED_SINCE = 1293870080
PERSONAL_DELETE_SIZE = 999


@dataclass(frozen=True)
class Verdict:
    valid: bool
    reason: str = ""  # why not valid; "" when valid
    signed: bool = False  # False: an unsigned spot from before 2011
    spotter_id: str = ""
    key_bits: int = 0  # the spotter's key's size (384-bit keys prove little)


def _bad(reason: str) -> Verdict:
    return Verdict(False, reason)


def verify_header(
    frm: SpotFrom, subject: bytes, message_id: bytes, posted: int | None = None
) -> Verdict:
    """The overview line's signatures: what XOVER alone can check."""
    title, _ = parse_subject(subject, frm.key_id)
    if not title or not frm.nickname:
        return _bad("no_title")
    stamp = posted if posted is not None else frm.created
    if frm.key_id == KEY_LEGACY and stamp <= SIGNED_SINCE:
        return Verdict(True, signed=False)
    if not frm.header_signature:
        return _bad("unsigned_after_2011")
    try:
        signature = spot_b64decode(frm.header_signature)
        modulus = spot_b64decode(frm.modulus_text) if frm.modulus_text else b""
    except BadBase64:
        return _bad("bad_encoding")
    message = title + frm.signed_header + frm.nickname
    personal = (
        frm.key_id == KEY_MODERATOR
        and frm.size == PERSONAL_DELETE_SIZE
        and len(frm.modulus_text) > 50
    )
    if frm.key_id == KEY_SELF_SIGNED or personal:
        if not has_hashcash(message_id):
            return _bad("no_hashcash")
        if not modulus:
            return _bad("no_key")
        try:
            key = public_key(modulus)
        except BadKey:
            return _bad("bad_key")
    else:
        found = spotnet_key(frm.key_id)
        if found is None:
            return _bad("unknown_key")
        key = found
    if not verifies(key, message, signature):
        return _bad("bad_header_signature")
    own = frm.key_id == KEY_SELF_SIGNED or personal  # the header proves the spotter's key
    if not (modulus and frm.user_signature_text):
        if own:
            return Verdict(
                True, signed=True, spotter_id=spotter_id(modulus), key_bits=len(modulus) * 8
            )
        return Verdict(True, signed=True)
    try:
        user_signature = spot_b64decode(frm.user_signature_text)
    except BadBase64:
        return _bad("bad_encoding")
    try:
        user_key = public_key(modulus)
    except BadKey:
        return _bad("bad_key")
    if not verifies(user_key, _bracketed(message_id), user_signature):
        return _bad("bad_user_signature")
    return Verdict(True, signed=True, spotter_id=spotter_id(modulus), key_bits=len(modulus) * 8)


def verify_spot(
    head: SpotHead, message_id: bytes, posted: int | None = None
) -> tuple[Verdict, SpotFrom | None, SpotXml | None]:
    """The full spot's signatures (its HEAD), with its From header and document read."""
    try:
        frm = parse_from(head.get(b"from"))
    except NotASpot as e:
        return _bad(f"not_a_spot:{e.reason}"), None, None
    subject = head.get(b"subject")
    verdict = verify_header(frm, subject, message_id, posted)
    if not verdict.valid:
        return verdict, frm, None
    if not head.xml:
        return _bad("no_xml"), frm, None
    try:
        doc = parse_spot_xml(head.xml)
    except BadSpotXml:
        return _bad("bad_xml"), frm, None
    if verdict.signed:
        problem = _full_signatures(head, frm, message_id)
        if problem:
            return _bad(problem), frm, doc
    title, tag = parse_subject(subject, frm.key_id)
    if _text(title) != doc.title or (tag and doc.tag and _text(tag) != doc.tag):
        return _bad("subject_mismatch"), frm, doc
    return verdict, frm, doc


def _full_signatures(head: SpotHead, frm: SpotFrom, message_id: bytes) -> str:
    """The reason the full spot's own signatures fail, or ""."""
    try:
        from_modulus = spot_b64decode(frm.modulus_text) if frm.modulus_text else b""
        if head.user_key:
            modulus_text, exponent_text = user_key_modulus(head.user_key)
            modulus = spot_b64decode(modulus_text)
            exponent = int.from_bytes(spot_b64decode(exponent_text), "big")
        elif frm.user_signature_text or frm.key_id == KEY_SELF_SIGNED:
            return "no_user_key"  # a spotter's spot carries its key in full
        else:
            modulus, exponent = from_modulus, 65537
        user_signature = spot_b64decode(head.user_signature) if head.user_signature else b""
        xml_signature = spot_b64decode(head.xml_signature) if head.xml_signature else b""
    except (BadBase64, BadSpotXml):
        return "bad_key"
    if not modulus:
        return ""  # a moderator's or an old client's spot: its header signature is all
    if from_modulus and frm.key_id == KEY_SELF_SIGNED and modulus != from_modulus:
        return "key_mismatch"
    try:
        key = public_key(modulus, exponent)
    except BadKey:
        return "bad_key"
    if not user_signature:
        return "no_user_signature"  # a key with nothing it signs proves nothing
    if not verifies(key, _bracketed(message_id), user_signature):
        return "bad_user_signature"
    if not xml_signature:
        return "xml_unsigned"
    if not verifies(key, head.xml, xml_signature):
        return "bad_xml_signature"
    return ""


def _bracketed(message_id: bytes) -> bytes:
    message_id = message_id.strip()
    return message_id if message_id.startswith(b"<") else b"<" + message_id + b">"


def _text(raw: bytes) -> str:
    return html.unescape(to_text(raw)).strip()
