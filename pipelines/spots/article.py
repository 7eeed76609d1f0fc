"""A spot's full header (what HEAD returns): its X-XML document, the document's
signature, the spotter's key and signature, and the document read into fields.

The X-XML lines are one document split at arbitrary bytes: concatenated as they came,
with nothing trimmed at the seams (a split may fall inside a word). Some clients write
an unescaped `&` or a control byte into the title or description: as Spotweb does, those
elements are read as CDATA when the document does not parse as it is.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from pipelines.naming import to_text


class BadSpotXml(ValueError):
    pass


@dataclass
class SpotHead:
    """The header fields of a spot article, raw."""

    fields: dict[bytes, bytes]  # lower-case name -> the first value (From, Subject, ...)
    xml: bytes  # the X-XML values, concatenated
    xml_signature: bytes  # X-XML-Signature, Spotnet base64 as posted
    user_key: bytes  # X-User-Key (an RSAKeyValue)
    user_signature: bytes  # X-User-Signature

    def get(self, name: bytes) -> bytes:
        return self.fields.get(name.lower(), b"")


def parse_head(text: bytes) -> SpotHead:
    """The header lines of an article (or of HEAD's reply, without its status line); the
    body after the first empty line is ignored."""
    head = text.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    fields: dict[bytes, bytes] = {}
    xml: list[bytes] = []
    for line in _unfolded(head.split(b"\n")):
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        key = name.strip().lower()
        value = value[1:] if value.startswith(b" ") else value
        if key == b"x-xml":
            xml.append(value)
        else:
            fields.setdefault(key, value)
    return SpotHead(
        fields=fields,
        xml=b"".join(xml),
        xml_signature=fields.get(b"x-xml-signature", b"").strip(),
        user_key=fields.get(b"x-user-key", b"").strip(),
        user_signature=fields.get(b"x-user-signature", b"").strip(),
    )


def _unfolded(lines: list[bytes]) -> list[bytes]:
    out: list[bytes] = []
    for line in lines:
        if line[:1] in (b" ", b"\t") and out:
            out[-1] += line
        else:
            out.append(line)
    return out


def user_key_modulus(user_key: bytes) -> tuple[bytes, bytes]:
    """(Modulus, Exponent) texts of an X-User-Key: an `<RSAKeyValue>` of just those two."""
    try:
        root = ET.fromstring(user_key)
    except ET.ParseError as e:
        raise BadSpotXml(f"X-User-Key: {e}") from e
    parts = {child.tag: (child.text or "").strip() for child in root}
    if root.tag != "RSAKeyValue" or sorted(parts) != ["Exponent", "Modulus"] or len(root) != 2:
        raise BadSpotXml("X-User-Key is no RSAKeyValue")
    return parts["Modulus"].encode(), parts["Exponent"].encode()


@dataclass
class SpotXml:
    """What the X-XML document says."""

    key: int
    created: int
    poster: str
    title: str
    tag: str
    description: str
    size: int
    category: int  # head category (0 image, 1 sound, 2 games, 3 apps)
    subcats: list[str] = field(default_factory=list)  # "a9", "b4", ...
    website: str = ""
    image: str = ""  # an image URL (older spots)
    image_ids: list[str] = field(default_factory=list)  # image article message-ids
    nzb_ids: list[str] = field(default_factory=list)  # the NZB's article message-ids


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_WRAPPED = (b"Title", b"Description", b"Image", b"Tag", b"Website")


def parse_spot_xml(xml: bytes) -> SpotXml:
    """The spot's fields in its X-XML document."""
    try:
        root = ET.fromstring(to_text(_CONTROL.sub(b"", xml)))
    except ET.ParseError:
        try:
            root = ET.fromstring(to_text(_as_cdata(_CONTROL.sub(b"", xml))))
        except ET.ParseError as e:
            raise BadSpotXml(str(e)) from e
    posting = root.find("Posting")
    if root.tag != "Spotnet" or posting is None:
        raise BadSpotXml("no Spotnet/Posting")
    key = _int(posting.findtext("Key"))
    category = _int(posting.findtext("Category"))
    image = posting.find("Image")
    return SpotXml(
        key=key,
        created=_int(posting.findtext("Created")),
        poster=(posting.findtext("Poster") or "").strip(),
        title=(posting.findtext("Title") or "").strip(),
        tag=(posting.findtext("Tag") or "").strip(),
        description=(posting.findtext("Description") or "").strip(),
        size=_int(posting.findtext("Size")),
        # signed spots write the head category plus one, as the From header does
        category=category - 1 if key != 1 else category,
        subcats=_subcats(posting),
        website=(posting.findtext("Website") or "").strip(),
        image=(image.text or "").strip() if image is not None and not len(image) else "",
        image_ids=_ids(posting, "Image/Segment"),
        nzb_ids=_ids(posting, "NZB/Segment"),
    )


def _as_cdata(xml: bytes) -> bytes:
    for name in _WRAPPED:
        start, end = b"<" + name + b">", b"</" + name + b">"
        if start in xml and end in xml and start + b"<![CDATA[" not in xml:
            xml = xml.replace(start, start + b"<![CDATA[").replace(end, b"]]>" + end)
    return xml


def _subcats(posting: ET.Element) -> list[str]:
    out = []
    for sub in posting.findall("Category/Sub") + posting.findall("Category/SubCat"):
        m = re.fullmatch(r"\d*([a-zA-Z])(\d+)", (sub.text or "").strip())
        if m:
            out.append(f"{m.group(1).lower()}{int(m.group(2))}")
    return out


def _ids(posting: ET.Element, path: str) -> list[str]:
    """Message-ids listed under path; none if one is no message-id (as Spotweb: a
    broken list is no list)."""
    ids = [(s.text or "").strip() for s in posting.findall(path)]
    if any(not i or "<" in i or ">" in i or " " in i for i in ids):
        return []
    return ids


def _int(text: str | None) -> int:
    try:
        return int((text or "").strip())
    except ValueError:
        return 0
