"""What one article body shows: `inspect_body(body) -> Inspection`.

The body is decoded (pipelines/probe/yenc.py) and its bytes read by the reader of their
format, known by its first bytes: a par2 set, a RAR/7z/ZIP listing, an NFO, media. A part
that ends its file and is no first part is read for a 7z end header (the last part of a 7z
set's last volume). A body that is no good yEnc, or bytes that are no format we read,
give a status and a detail: never an exception.
"""

from __future__ import annotations

import dataclasses
import hashlib

from pipelines.probe import inspection as ins
from pipelines.probe.inspection import Inspection
from pipelines.probe.listing import Listing
from pipelines.probe.magic import is_nzb, media_kind
from pipelines.probe.nfo import as_text, read_text
from pipelines.probe.par2 import MAGIC as PAR2_MAGIC
from pipelines.probe.par2 import read_par2
from pipelines.probe.rar import is_rar, read_rar
from pipelines.probe.sevenzip import is_7z, read_7z_start, read_7z_tail
from pipelines.probe.yenc import Part, decode_part
from pipelines.probe.ziplocal import is_zip, read_zip


def inspect_body(body: bytes) -> Inspection:
    try:
        return _inspect(body)
    except Exception as exc:  # a reader's bug must not stop the pass: counted instead
        return Inspection(ins.ERROR, detail=f"reader failed: {type(exc).__name__}: {exc}")


_CONTAINER_FIRST = "mimetype"  # the first entry of an epub / OpenDocument ZIP

# par2 describes each file by the MD5 of its first 16 KiB (PAR 2.0, FileDesc packet)
HEAD_BYTES = 16 * 1024


def head_md5(part: Part) -> bytes | None:
    """The MD5 par2 gives the part's file: of its first 16 KiB, or of the whole file when
    it is shorter; None when the part is no first part or holds too little of its file."""
    if part.begin != 0:
        return None
    if len(part.data) >= HEAD_BYTES:
        return hashlib.md5(part.data[:HEAD_BYTES]).digest()
    if part.ends_file:
        return hashlib.md5(part.data).digest()
    return None


def _inspect(body: bytes) -> Inspection:
    part = decode_part(body)
    if part.problem:
        return Inspection(
            part.problem, yenc_name=part.name, yenc_size=part.file_size, detail=part.detail
        )
    found = _read(part)
    head = head_md5(part)
    return found if head is None else dataclasses.replace(found, head_md5=head)


def _read(part: Part) -> Inspection:
    if part.begin == 0:
        found = _first_bytes(part)
        if found is not None:
            return found
    elif (part.name or "").lower().endswith(NZB_NAMES):
        return _nzb_part(part)  # a later part of an NZB posted in several
    if part.ends_file:
        tail = read_7z_tail(part.data)
        if tail is not None:
            return _archive(part, ins.SEVEN_ZIP, tail)
    where = "a later part, and no 7z header ends it" if part.begin else "no format we read"
    return Inspection(ins.ERROR, yenc_name=part.name, yenc_size=part.file_size, detail=where)


NZB_NAMES = (".nzb", ".nzb.gz")


def _nzb_part(part: Part) -> Inspection:
    whole = part.begin == 0 and part.ends_file
    return Inspection(
        ins.OK, ins.NZB, yenc_name=part.name, yenc_size=part.file_size, nzb=part.data,
        nzb_at=part.begin, detail="" if whole else "a part of an NZB posted in several",
    )  # fmt: skip


def _archive(part: Part, kind: str, listing: Listing) -> Inspection:
    return Inspection(
        ins.OK,
        kind,
        yenc_name=part.name,
        yenc_size=part.file_size,
        names=listing.names,
        sizes=listing.sizes,
        encrypted=listing.encrypted,
        inner_archive=listing.inner_archive,
        detail=listing.detail,
    )


def _first_bytes(part: Part) -> Inspection | None:
    data = part.data
    if is_nzb(data, part.name):
        return _nzb_part(part)
    if data.startswith(PAR2_MAGIC):
        found = read_par2(data)
        return Inspection(
            ins.OK,
            ins.PAR2,
            yenc_name=part.name,
            yenc_size=part.file_size,
            names=found.names,
            sizes=found.sizes,
            hashes=found.hashes,
            par2_set=found.set_id,
            detail="" if found.packets else "no whole packet in the part",
        )
    if is_rar(data):
        return _archive(part, ins.RAR, read_rar(data))
    if is_7z(data):
        return _archive(part, ins.SEVEN_ZIP, read_7z_start(data))
    media = media_kind(data)  # before ZIP: an epub is a ZIP
    if media is not None:
        kind, what = media
        # a container's bytes are plainly readable; a program's say nothing of a password
        encrypted = False if kind == ins.MEDIA else None
        return Inspection(
            ins.OK,
            kind,
            yenc_name=part.name,
            yenc_size=part.file_size,
            encrypted=encrypted,
            detail=what,
        )
    if is_zip(data):
        listing = read_zip(data)
        if listing.names[:1] == [_CONTAINER_FIRST] and not listing.encrypted:
            # an epub or OpenDocument file: a ZIP whose first entry is `mimetype` (OCF);
            # its entries are the format's own, no release's names
            return Inspection(
                ins.OK, ins.MEDIA, yenc_name=part.name, yenc_size=part.file_size,
                encrypted=False, detail="zip container (mimetype first)",
            )  # fmt: skip
        return _archive(part, ins.ZIP, listing)
    text = as_text(data)
    if text is None:
        return None
    nfo = read_text(text)
    named_nfo = (part.name or "").lower().endswith(".nfo")
    kind = ins.NFO if named_nfo or nfo.art or nfo.title else ins.OTHER
    return Inspection(
        ins.OK,
        kind,
        yenc_name=part.name,
        yenc_size=part.file_size,
        nfo_title=nfo.title if kind == ins.NFO else None,
        password_text=nfo.password,
        detail="text",
    )
