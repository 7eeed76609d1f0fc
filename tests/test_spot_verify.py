"""Spots: the From header, the full spot's signatures, Spotnet's base64, the spot's NZB;
on the real key-7 spot and the real From headers (../shared/data/spotnet), and on spots
signed here with keys of our own."""

from __future__ import annotations

import hashlib
import zlib
from datetime import UTC, datetime

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.spots.article import parse_head, parse_spot_xml
from pipelines.spots.encoding import spot_b64decode, spot_b64encode, spotter_id
from pipelines.spots.header import NotASpot, parse_from, parse_subject
from pipelines.spots.nzb import BadSpotNzb, escape, spot_nzb, unescape
from pipelines.spots.signing import has_hashcash, sign
from pipelines.spots.verify import verify_header, verify_spot
from tests.shared_data import DATA, needs_data

SPOTNET = DATA / "spotnet"
SPOT = SPOTNET / "spot_article_newsxs_2015-09-25.txt"
# the header lines of the real spot whose every byte a signature covers
SIGNED = (b"From:", b"Subject:", b"Message-ID:", b"X-XML:", b"X-XML-Signature:", b"X-User-Key:",
          b"X-User-Signature:")  # fmt: skip


def verified(raw: bytes):
    head = parse_head(raw)
    return verify_spot(head, head.get(b"message-id"))


@needs_data("spotnet")
def test_the_real_key_7_spot_verifies_and_reads():
    verdict, frm, doc = verified(SPOT.read_bytes())
    assert verdict.valid and verdict.signed, verdict
    assert frm is not None and frm.key_id == 7 and frm.category == 3
    assert doc is not None and doc.title == "Mkv Tool Nix 8.4.0 NL" and doc.tag == "Zgp"
    assert doc.nzb_ids == ["sm0Ls136Ir4EhIFVgj4Dg@spot.net"]
    assert doc.image_ids == ["Ldqj0ABsZDMEhIFVgyrLc@spot.net"]
    assert (doc.size, doc.category, doc.subcats) == (16110764, 3, ["a0", "b1"])
    assert verdict.key_bits == 384
    modulus = spot_b64decode(frm.modulus_text)
    assert verdict.spotter_id == spotter_id(modulus)


@needs_data("spotnet")
def test_any_changed_byte_of_the_signed_headers_does_not_verify():
    raw = SPOT.read_bytes()
    tried = 0
    for line in raw.split(b"\r\n\r\n")[0].split(b"\r\n"):
        if line.startswith(SIGNED):
            offset = raw.index(line)
            for i in range(len(line)):
                changed = bytearray(raw)
                changed[offset + i] ^= 1  # never a change of case alone
                tried += 1
                assert not verified(bytes(changed))[0].valid, (line[:20], i)
    assert tried > 1000


def test_spotnet_base64_escapes_two_characters_and_drops_padding():
    data = bytes(range(256))
    text = spot_b64encode(data)
    assert b"/" not in text and b"+" not in text and not text.endswith(b"=")
    assert spot_b64decode(text) == data
    assert spot_b64decode(b"-p-s8A") == bytes([0xFB, 0xFF, 0x00])
    assert spotter_id(b"\x01\x02\x03") == spotter_id(b"\x01\x02\x03") != spotter_id(b"\x01\x02")


FROM_PARSES = {
    "ParsesHeaderValidVariant1": dict(nickname=b"solem", category=0, key_id=7,
        subcats=["a9", "b4", "d11", "b11", "c0", "c11", "z1"], size=3366259428,
        created="2024-09-30T19:04:19", custom=(b"1", b"NL")),
    "ParsesHeaderValidVariant2": dict(nickname=b"Krid", category=0, key_id=2, subcats=["a1"],
        size=999, created="2024-09-30T18:32:58", custom=(b"1", b"NL")),
    "ParsesHeaderFromRawSubjectAndAuthorValues": dict(nickname=b"solem", key_id=7,
        size=3366259428),
}  # fmt: skip


@needs_data("spotnet")
def test_every_real_from_header_parses_as_listed():
    rows = (SPOTNET / "spottarr_spotnet_from_headers.tsv").read_bytes().splitlines()
    seen = set()
    for row in rows:
        if row.startswith(b"#") or row.startswith(b"test_method"):
            continue
        name, value = row.decode().split("\t")[0], row.split(b"\t")[1]
        seen.add(name)
        if name.startswith("DoesNotParse"):
            with pytest.raises(NotASpot):
                parse_from(value)
            continue
        frm = parse_from(value)
        for field, want in FROM_PARSES[name].items():
            got = getattr(frm, field)
            if field == "created":
                got = datetime.fromtimestamp(got, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            assert got == want, (name, field)
    assert seen == {*FROM_PARSES, "DoesNotParseHeaderMissingFields"}


def test_the_subject_is_title_then_tag():
    assert parse_subject(b"Some Title | tag", 7) == (b"Some Title", b"tag")
    assert parse_subject(b"No tag", 2) == (b"No tag", b"")
    assert parse_subject(b"Old | one | tag", 1) == (b"Old | one", b"tag")


# --- spots of our own: a key of our own, hashcash found by trying ---------------------


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=1024)


def hashcash_id(prefix: str) -> bytes:
    n = 0
    while not has_hashcash(f"<{prefix}{n}@spot.net>".encode()):
        n += 1
    return f"{prefix}{n}@spot.net".encode()


def own_spot(key: rsa.RSAPrivateKey, message_id: bytes, title: bytes = b"A Title") -> bytes:
    modulus = key.public_key().public_numbers().n.to_bytes(128, "big")
    header = b"47a00b01.1234.10.1700000000.1.NL"
    header_sig = sign(key, title + header + b"nick")
    user_sig = sign(key, b"<" + message_id + b">")
    xml = (b"<Spotnet><Posting><Key>7</Key><Created>1700000000</Created><Poster>nick</Poster>"
           b"<Tag>t</Tag><Title>" + title + b"</Title><Description>d</Description>"
           b"<Size>1234</Size><Category>04<Sub>04a00</Sub></Category>"
           b"<NZB><Segment>n1@spot.net</Segment></NZB></Posting></Spotnet>")  # fmt: skip
    local = spot_b64encode(modulus) + b"." + spot_b64encode(user_sig)
    return b"\n".join([
        b"From: nick <" + local + b"@" + header + b"." + spot_b64encode(header_sig) + b">",
        b"Subject: " + title + b" | t",
        b"Message-ID: <" + message_id + b">",
        b"X-XML: " + xml[:50], b"X-XML: " + xml[50:],
        b"X-XML-Signature: " + spot_b64encode(sign(key, xml)),
        b"X-User-Key: <RSAKeyValue><Modulus>" + spot_b64encode(modulus).replace(b"-s", b"/")
        .replace(b"-p", b"+") + b"</Modulus><Exponent>AQAB</Exponent></RSAKeyValue>",
        b"X-User-Signature: " + spot_b64encode(user_sig), b"", b"body",
    ])  # fmt: skip


def test_a_spot_signed_with_our_own_key_verifies(key):
    verdict, _, doc = verified(own_spot(key, hashcash_id("ok")))
    assert verdict.valid and verdict.key_bits == 1024, verdict
    assert doc is not None and doc.nzb_ids == ["n1@spot.net"]


def test_a_key_7_spot_without_hashcash_is_refused(key):
    message_id = b"nohash@spot.net"
    assert not hashlib.sha1(b"<" + message_id + b">").hexdigest().startswith("0000")
    assert verified(own_spot(key, message_id))[0].reason == "no_hashcash"


def test_another_key_or_a_changed_title_is_refused(key):
    other = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    raw = own_spot(key, hashcash_id("swap"))
    forged = raw.replace(
        b"X-User-Key: <RSAKeyValue><Modulus>", b"X-User-Key: <RSAKeyValue><Modulus>x", 1
    )
    assert not verified(forged)[0].valid
    theirs = own_spot(other, hashcash_id("theirs"))
    mixed = (
        raw.split(b"\nX-XML-Signature")[0]
        + b"\nX-XML-Signature"
        + theirs.split(b"\nX-XML-Signature")[1]
    )
    assert not verified(mixed)[0].valid
    assert verified(raw.replace(b"A Title", b"B Title"))[0].reason == "bad_header_signature"


@needs_data("spotnet")
@pytest.mark.parametrize("modulus", [b"AAAA", b"AAAB", b"Ag", b"AA-s"])
def test_a_key_that_is_no_key_is_a_reason(modulus):
    raw = SPOT.read_bytes()
    start = raw.index(b"From: Zinitzio <") + len(b"From: Zinitzio <")
    changed = raw[:start] + modulus + raw[raw.index(b".", start) :]
    assert verified(changed)[0].reason in ("bad_key", "bad_encoding")


def test_an_unsigned_spot_counts_only_before_2011():
    old = parse_from(b"nick <abc@11a00.10.10.1200000000.1.NL>")
    assert verify_header(old, b"Old | t", b"x@spot.net").valid
    new = parse_from(b"nick <abc@11a00.10.10.1400000000.1.NL>")
    assert verify_header(new, b"New | t", b"x@spot.net").reason == "unsigned_after_2011"


def test_the_spot_xml_reads_unescaped_ampersands_as_spotweb_does():
    doc = parse_spot_xml(
        b"<Spotnet><Posting><Key>7</Key><Title>Tom & Jerry</Title><Category>01</Category>"
        b"</Posting></Spotnet>"
    )
    assert doc.title == "Tom & Jerry" and doc.category == 0


def test_the_spot_nzb_is_unescaped_and_raw_inflated():
    nzb = b"<nzb>" + bytes(range(256)) * 40 + b"</nzb>"
    deflater = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = escape(deflater.compress(nzb) + deflater.flush())
    assert b"\n" not in packed and b"\r" not in packed and b"\x00" not in packed
    bodies = [packed[i : i + 300] for i in range(0, len(packed), 300)]
    assert (
        spot_nzb([b"\r\n".join(b[j : j + 100] for j in range(0, len(b), 100)) for b in bodies])
        == nzb
    )
    with pytest.raises(BadSpotNzb, match="truncated_deflate"):
        spot_nzb(bodies[:-1])
    with pytest.raises(BadSpotNzb, match="bad_escape"):
        unescape(b"ab=Ecd")
    assert unescape(b"=D=A=B=C") == b"=\x00\r\n"


@needs_data("spotnet")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.binary(max_size=4), st.integers(0, 3)),
                min_size=1, max_size=4))  # fmt: skip
def test_a_mangled_spot_is_a_verdict_never_a_crash(edits):
    raw = bytearray(SPOT.read_bytes())
    head = raw.index(b"\r\n\r\n")
    for at, data, cut in edits:
        at %= head  # the header: what is parsed and checked
        raw[at : at + cut] = data
    verdict, _, _ = verified(bytes(raw))
    assert verdict.valid or verdict.reason
