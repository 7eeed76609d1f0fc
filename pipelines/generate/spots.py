"""Spot groups for the generated corpus (`GenerateConfig.spots`): Spotnet as a spotter
posts it, so the spot reader and its tests have a real signed feed to read.

- `free.pt`: key-7 spots signed with the generator's own spotters' keys (from the seed),
  each with its hashcash message-id; most describe an upload of the corpus (its NZB is
  that upload's articles), some an upload the corpus lacks (a spot of its own). Among
  them: spots changed after signing, spots without a hashcash, unsigned spots after 2011,
  spots whose NZB is gone or badly escaped, personal deletes of some spots by their own
  spotter, and a delete forged by another.
- `alt.binaries.ftd`: each spot's NZB, raw-deflated, escaped (`=A` NUL, `=B` CR, `=C` LF,
  `=D` `=`) and cut into articles.
The spots' full headers and the NZB articles' bodies go to `bodies/articles.parquet`
(served by `serve-nntp`); what each spot is and should become, to `truth/spots.parquet`.
"""

from __future__ import annotations

import hashlib
import random
import zlib
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

import pyarrow as pa
from cryptography.hazmat.primitives.asymmetric import rsa

from pipelines.articles.raw import ARTICLES_FILE, write_articles
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.writer import CorpusWriter
from pipelines.generate.contents.nzb import upload_nzb
from pipelines.generate.spotkeys import seeded_key
from pipelines.generate.truth import write_parquet
from pipelines.generate.uploads import Upload
from pipelines.spots.encoding import spot_b64encode
from pipelines.spots.nzb import escape
from pipelines.spots.signing import has_hashcash, sign

SPOT_GROUP = "free.pt"
NZB_GROUP = "alt.binaries.ftd"
SPOTTERS = 3
NZB_ARTICLE_BYTES = 20_000  # escaped NZB bytes an NZB article carries
NZB_LINE = 900
TRUTH_SCHEMA = pa.schema(
    [
        ("message_id", pa.string()),
        ("kind", pa.string()),  # spot | delete
        # listed | deleted | a rejection reason | nzb_gone | nzb_unreadable
        ("expect", pa.string()),
        ("upload_id", pa.int64()),  # the corpus upload it describes; -1 none
        ("title", pa.string()),
        ("password", pa.string()),
        ("spotter", pa.int32()),
        ("posted", pa.int64()),
        ("nzb_sha1", pa.binary(20)),  # of the NZB posted (before deflating)
        ("target", pa.string()),  # a delete's
    ]
)


@dataclass
class SpotFeed:
    """What `make_spot_feed` made: both groups' overview lines (a line's fields without
    its number), the stored articles, the truth."""

    spot_lines: list[tuple[int, list[bytes]]]  # (posted, fields)
    nzb_lines: list[tuple[int, list[bytes]]]
    articles: list[tuple[str, bytes, bytes]]
    truth: list[dict[str, Any]]


class _Poster:
    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(f"spots-{seed}")
        self.keys = [seeded_key(f"{seed}-{i}") for i in range(SPOTTERS)]
        self.feed = SpotFeed([], [], [], [])

    def message_id(self, hashcash: bool = True) -> str:
        stem = "".join(
            self.rnd.choices("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", k=16)
        )
        n = 0
        while has_hashcash(f"<{stem}{n}@spot.net>".encode()) != hashcash:
            n += 1
        return f"{stem}{n}@spot.net"

    def post_nzb(self, nzb: bytes, posted: int, missing: bool, bad_escape: bool) -> list[str]:
        deflater = zlib.compressobj(9, zlib.DEFLATED, -15)
        data = escape(deflater.compress(nzb) + deflater.flush())
        if bad_escape:
            data = data[: len(data) // 2] + b"=E" + data[len(data) // 2 :]
        ids = []
        for k in range(0, len(data), NZB_ARTICLE_BYTES):
            piece = data[k : k + NZB_ARTICLE_BYTES]
            body = b"".join(
                piece[j : j + NZB_LINE] + b"\r\n" for j in range(0, len(piece), NZB_LINE)
            )
            message_id = self.message_id(hashcash=False)
            ids.append(message_id)
            if missing and k == 0:
                continue  # never posted (or taken down): BODY answers 430
            head = _head([b"From: spotnet <spotnet@spot.net>", b"Subject: " + message_id.encode(),
                          b"Newsgroups: " + NZB_GROUP.encode(), b"Date: " + _date(posted),
                          b"Message-ID: <" + message_id.encode() + b">"])  # fmt: skip
            self.feed.articles.append((message_id, head, body))
            fields = _overview(
                message_id.encode(), b"spotnet <spotnet@spot.net>", posted, len(body)
            )
            self.feed.nzb_lines.append((posted, fields))
        return ids

    def spot(
        self, spotter: int, title: str, nzb_ids: list[str], posted: int, size: int,
        description: str = "", tamper: bool = False, hashcash: bool = True,
    ) -> str:  # fmt: skip
        """Post a signed key-7 spot; its message-id."""
        key = self.keys[spotter]
        message_id = self.message_id(hashcash)
        nick, tag = f"spotter{spotter}".encode(), b"gen"
        header = b"47a00b01." + str(size).encode() + b".10." + str(posted).encode() + b".1.NL"
        xml = (
            b"<Spotnet><Posting><Key>7</Key><Created>" + str(posted).encode() + b"</Created>"
            b"<Poster>" + nick + b"</Poster><Tag>" + tag + b"</Tag><Title>" + _xml(title)
            + b"</Title><Description>" + _xml(description) + b"</Description><Size>"
            + str(size).encode() + b"</Size><Category>04<Sub>04a00</Sub><Sub>04b01</Sub></Category>"
            + b"<NZB>" + b"".join(b"<Segment>" + i.encode() + b"</Segment>" for i in nzb_ids)
            + b"</NZB></Posting></Spotnet>"
        )  # fmt: skip
        fields = self._signed(key, title.encode(), header, nick, message_id, xml)
        if tamper:  # changed after signing: a spotter's words replaced in transit
            fields["xml"] = fields["xml"].replace(b"<Tag>gen</Tag>", b"<Tag>gem</Tag>")
        self._post_spot(message_id, title.encode() + b" | " + tag, fields, posted, size)
        return message_id

    def unsigned(self, title: str, posted: int) -> str:
        """A key-1 spot with no signature, posted after 2011: rejected."""
        message_id = self.message_id()
        frm = b"old <abc@11a00.1000.10." + str(posted).encode() + b".1.NL>"
        line = _overview(message_id.encode(), frm, posted, 1000, title.encode() + b" | x")
        self.feed.spot_lines.append((posted, line))
        self.feed.articles.append((message_id, _head([b"From: " + frm]), b"x\r\n"))
        return message_id

    def delete(self, spotter: int, target: str, posted: int, personal: bool = True) -> str:
        """A key-2 delete: a personal one (size 999, the spotter's own key and hashcash),
        or, `personal=False`, one claiming to be a moderator's but signed with a spotter's
        key (its signature fails Spotnet's key 2)."""
        key = self.keys[spotter]
        message_id = self.message_id()
        size = b"999" if personal else b"1000"
        header = b"12a00." + size + b".10." + str(posted).encode() + b".1.NL"  # image, key 2
        title = b"delete " + target.encode()
        fields = self._signed(key, title, header, b"spotter%d" % spotter, message_id, b"")
        self._post_spot(message_id, title, fields, posted, int(size))
        return message_id

    def _signed(
        self, key: rsa.RSAPrivateKey, title: bytes, header: bytes, nick: bytes, message_id: str,
        xml: bytes,
    ) -> dict[str, bytes]:  # fmt: skip
        n = key.public_key().public_numbers().n
        modulus = n.to_bytes((n.bit_length() + 7) // 8, "big")
        user_sig = sign(key, b"<" + message_id.encode() + b">")
        local = spot_b64encode(modulus) + b"." + spot_b64encode(user_sig)
        header_sig = spot_b64encode(sign(key, title + header + nick))
        return {
            "from": nick + b" <" + local + b"@" + header + b"." + header_sig + b">",
            "xml": xml,
            "xml_signature": spot_b64encode(sign(key, xml)) if xml else b"",
            "user_key": b"<RSAKeyValue><Modulus>" + _plain_b64(modulus)
            + b"</Modulus><Exponent>AQAB</Exponent></RSAKeyValue>",
            "user_signature": spot_b64encode(user_sig),
        }  # fmt: skip

    def _post_spot(
        self, message_id: str, subject: bytes, f: dict[str, bytes], posted: int, size: int
    ) -> None:
        lines = [b"From: " + f["from"], b"Subject: " + subject,
                 b"Newsgroups: " + SPOT_GROUP.encode(), b"Date: " + _date(posted),
                 b"Message-ID: <" + message_id.encode() + b">",
                 b"X-Newsreader: usenet-indexer generate"]  # fmt: skip
        xml = f["xml"]
        lines += [b"X-XML: " + xml[k : k + 900] for k in range(0, len(xml), 900)]
        if xml:
            lines.append(b"X-XML-Signature: " + f["xml_signature"])
        lines += [b"X-User-Key: " + f["user_key"], b"X-User-Signature: " + f["user_signature"]]
        self.feed.articles.append((message_id, _head(lines), b"spot\r\n"))
        line = _overview(message_id.encode(), f["from"], posted, size, subject)
        self.feed.spot_lines.append((posted, line))


def _plain_b64(data: bytes) -> bytes:
    return spot_b64encode(data).replace(b"-s", b"/").replace(b"-p", b"+")


def _xml(text: str) -> bytes:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").encode()


def _date(posted: int) -> bytes:
    return formatdate(posted, usegmt=True).encode()


def _head(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\r\n" for line in lines)


def _overview(
    message_id: bytes, sender: bytes, posted: int, nbytes: int, subject: bytes = b""
) -> list[bytes]:
    """A line's fields but its number (and Xref, made when it is numbered)."""
    return [subject or message_id, sender, _date(posted), b"<" + message_id + b">", b"",
            str(nbytes).encode(), b"1"]  # fmt: skip


def make_spot_feed(
    uploads: list[Upload], group_names: list[str], seed: int, count: int, start: int, end: int
) -> SpotFeed:
    """`count` spots (and the deletes and NZBs that go with them) over the corpus."""
    p = _Poster(seed)
    rnd = p.rnd
    readable = [u for u in uploads if u.readable and u.complete and not u.gone and u.files]
    chosen = rnd.sample(readable, min(len(readable), count))
    for i in range(count):
        spotter = i % SPOTTERS
        upload = chosen[i] if i < len(chosen) and i % 7 != 6 else None
        if upload is not None:
            nzb = upload_nzb(upload, [group_names[g] for g in upload.groups])
            posted, title = upload.posted_last + rnd.randrange(600, 7200), upload.name
        else:  # an upload the corpus lacks: the spot's NZB is all there is of it
            posted = rnd.randrange(start, end)
            title = f"Spotted Only {seed}.{i} 2023 1080p WEB x264"
            nzb = _standalone_nzb(rnd, title, posted)
        password = f"pw{i}" if i % 5 == 4 else ""
        shown = f"{title} {{{{{password}}}}}" if password else title
        expect, tamper, hashcash = "listed", False, True
        missing, bad_escape = i % 17 == 16, i % 19 == 18
        if i % 9 == 8:
            expect, tamper = "bad_xml_signature", True
        elif i % 11 == 10:
            expect, hashcash = "no_hashcash", False
        elif missing:
            expect = "nzb_gone"
        elif bad_escape:
            expect = "nzb_unreadable"
        nzb_ids = p.post_nzb(nzb, posted, missing, bad_escape)
        size = sum(f.size for f in upload.files) if upload is not None else 123_456_789
        message_id = p.spot(spotter, shown, nzb_ids, posted, size, "a spot", tamper, hashcash)
        p.feed.truth.append(_truth(message_id, "spot", expect, upload, shown, password, spotter,
                                   posted, nzb))  # fmt: skip
        if expect == "listed" and i % 10 == 3:  # its spotter takes it back
            gone = p.delete(spotter, message_id, posted + 3600)
            p.feed.truth[-1]["expect"] = "deleted"
            p.feed.truth.append(_truth(gone, "delete", "listed", None, "", "", spotter,
                                       posted + 3600, b"", message_id))  # fmt: skip
        if expect == "listed" and i % 10 == 5:  # another spotter may not
            forged = p.delete((spotter + 1) % SPOTTERS, message_id, posted + 60, personal=False)
            p.feed.truth.append(_truth(forged, "delete", "bad_header_signature", None, "", "",
                                       spotter, posted + 60, b"", message_id))  # fmt: skip
    for k in range(max(1, count // 10)):
        posted = rnd.randrange(start, end)
        old = p.unsigned(f"Unsigned {k}", posted)
        p.feed.truth.append(
            _truth(old, "spot", "unsigned_after_2011", None, "", "", -1, posted, b"")
        )
    p.feed.spot_lines.sort(key=lambda line: line[0])  # numbered in posting order
    p.feed.nzb_lines.sort(key=lambda line: line[0])
    return p.feed


def _standalone_nzb(rnd: random.Random, title: str, posted: int) -> bytes:
    files = []
    for f in range(3):
        ids = "".join(
            f'<segment bytes="700000" number="{k + 1}">'
            f"{rnd.getrandbits(64):016x}.{f}.{k}@spotted.example</segment>"
            for k in range(4)
        )
        subject = f"&quot;{title}.part{f + 1}.rar&quot; yEnc (1/4)"
        files.append(
            f'<file poster="spotter@example.com" date="{posted}" subject="{subject}">'
            f"<groups><group>alt.binaries.spotted</group></groups><segments>{ids}</segments></file>"
        )
    return ('<?xml version="1.0"?><nzb xmlns="http://www.newzbin.com/DTD/2003/nzb">'
            + "".join(files) + "</nzb>").encode()  # fmt: skip


def _truth(
    message_id: str, kind: str, expect: str, upload: Upload | None, title: str, password: str,
    spotter: int, posted: int, nzb: bytes, target: str = "",
) -> dict[str, Any]:  # fmt: skip
    return {
        "message_id": message_id, "kind": kind, "expect": expect,
        "upload_id": upload.upload_id if upload is not None else -1, "title": title,
        "password": password or None, "spotter": spotter, "posted": posted,
        "nzb_sha1": hashlib.sha1(nzb).digest() if nzb else None, "target": target or None,
    }  # fmt: skip


def write_spot_groups(
    root: str, uploads: list[Upload], group_names: list[str], config: Any, start: int, end: int
) -> int:
    """Write the spot groups of `config.spots` spots beside the corpus under `root`:
    overview ranges, stored articles, truth. Returns the spots posted."""
    feed = make_spot_feed(uploads, group_names, config.seed, config.spots, start, end)
    writer = CorpusWriter(f"{root}/corpus", codec=config.codec)
    for group, lines in ((SPOT_GROUP, feed.spot_lines), (NZB_GROUP, feed.nzb_lines)):
        first = 1_000_001  # a group that has been going for a while
        last = first + max(len(lines), 1) - 1
        ref = RangeRef(group, first, last)
        text = b"".join(
            b"\t".join([str(n).encode(), *fields, f"Xref: serve-nntp {group}:{n}".encode()])
            + b"\r\n"
            for n, (_, fields) in enumerate(lines, first)
        )
        entry = writer.write_chunk(ref, first, last, text)
        writer.write_manifest(ref, [entry], complete=True, server="usenet-indexer generate")
    write_articles(feed.articles, f"{root}/{ARTICLES_FILE}")
    write_parquet(pa.Table.from_pylist(feed.truth, TRUTH_SCHEMA), f"{root}/truth/spots.parquet")
    return sum(1 for t in feed.truth if t["kind"] == "spot")
