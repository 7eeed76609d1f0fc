"""The first bytes of a ZIP file: its first local header and the start of its data,
written by zipfile (pyzipper for AES), with the real member names."""

from __future__ import annotations

import io
import zipfile

import pyzipper
from pyzipper.zipfile_aes import AESZipInfo

from pipelines.generate.contents.sevenzip import seeded_random

DATE = (2019, 5, 14, 20, 0, 0)


def zip_head(members: list[str], password: str | None, seed: bytes) -> bytes:
    """A small ZIP of `members` (16 bytes each); AES-256 encrypted with a password. Its
    local headers, data and central directory are what a reader of its head sees."""
    out = io.BytesIO()
    with seeded_random(seed):
        if password:
            with pyzipper.AESZipFile(
                out, "w", compression=pyzipper.ZIP_DEFLATED, encryption=pyzipper.WZ_AES
            ) as archive:
                archive.setpassword(password.encode())
                for name in members:
                    archive.writestr(AESZipInfo(name, DATE), b"\0" * 16)
        else:
            with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name in members:
                    archive.writestr(zipfile.ZipInfo(name, DATE), b"\0" * 16)
    return out.getvalue()


def epub_head(seed: bytes) -> bytes:
    """An epub's first bytes as the OCF container has them: `mimetype` first, stored,
    holding `application/epub+zip`, then the container and package files."""
    out = io.BytesIO()
    with seeded_random(seed), zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as book:
        book.writestr(zipfile.ZipInfo("mimetype", DATE), b"application/epub+zip",
                      compress_type=zipfile.ZIP_STORED)  # fmt: skip
        for name in ("META-INF/container.xml", "OEBPS/content.opf"):
            book.writestr(zipfile.ZipInfo(name, DATE), b"<?xml version='1.0'?>" + seed)
    return out.getvalue()
