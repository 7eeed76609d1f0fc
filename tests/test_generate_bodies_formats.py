"""The formats the generator writes, checked by the tools that read them: par2cmdline
verifies a par2 index written from real files, rarfile lists RAR 4 and RAR 5 first
volumes and knows which need a password, py7zr reads a 7z set from its two ends,
zipfile and pyzipper read the ZIP heads."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import py7zr
import pytest
import rarfile

from pipelines.generate.contents import par2
from pipelines.generate.contents.rar import Entry, rar4_head, rar5_head
from pipelines.generate.contents.sevenzip import seven_zip_ends
from pipelines.generate.contents.zips import zip_head
from pipelines.probe.rar import read_rar
from tests.test_generate_bodies import Sparse

PAR2 = shutil.which("par2")
SALT = bytes(range(48))


@pytest.mark.skipif(PAR2 is None, reason="Debian's par2 (par2cmdline) is not installed")
def test_par2cmdline_verifies_an_index_written_from_real_files(tmp_path: Path) -> None:
    files = {
        "Some.Movie.2019.1080p.mkv": bytes(range(256)) * 700 + b"end",
        "Some.Movie.nfo": b"hi\r\n",
    }
    slice_size = 4096
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    index = par2.index_file([par2.set_file(n, d, slice_size) for n, d in files.items()], slice_size)
    (tmp_path / "Some.Movie.par2").write_bytes(index)
    ok = subprocess.run(
        [PAR2, "verify", "Some.Movie.par2"], cwd=tmp_path, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "All files are correct" in ok.stdout
    (tmp_path / "Some.Movie.nfo").write_bytes(b"ho\r\n")  # a damaged file is seen
    bad = subprocess.run(
        [PAR2, "verify", "Some.Movie.par2"], cwd=tmp_path, capture_output=True, text=True
    )
    assert bad.returncode != 0


def test_index_packets_carry_names_sizes_and_16k_hashes() -> None:
    data = b"x" * 40_000
    f = par2.set_file("A.Name.part01.rar", data, 4096)
    index = par2.index_file([par2.SetFile(f.name, f.size, f.md5, f.md5_16k)], 4096)
    assert index.startswith(b"PAR2\0PKT")
    at = index.find(b"PAR 2.0\0FileDesc") + 16
    assert index[at + 32 : at + 48] == f.md5_16k
    assert struct.unpack_from("<Q", index, at + 48)[0] == 40_000
    assert index[at + 56 :].startswith(b"A.Name.part01.rar")


@pytest.mark.parametrize("rar5", [False, True])
@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("encryption", ["none", "data", "headers"])
def test_rarfile_lists_first_volumes(rar5: bool, compressed: bool, encryption: str) -> None:
    entry = Entry(
        "Real.Name.S01E02.1080p.WEB.h264-GRP.mkv", 5_000_000_000, compressed,
        encryption == "data", encryption == "headers",
    )  # fmt: skip
    head = rar5_head(entry, 99_000_000, SALT) if rar5 else rar4_head(entry, 99_000_000, True, SALT)
    volume = rarfile.RarFile(io.BytesIO(head + b"\x5a" * 700_000))
    assert volume.needs_password() == (encryption != "none")
    if encryption == "headers":
        assert volume.infolist() == []
        return
    (info,) = volume.infolist()
    assert info.filename == entry.name and info.file_size == entry.size
    assert info.compress_type == (rarfile.RAR_M3 if compressed else rarfile.RAR_M0)
    assert info.needs_password() == (encryption == "data")


@pytest.mark.parametrize("rar5", [False, True])
@pytest.mark.parametrize(("volume", "last"), [(1, False), (7, False), (7, True)])
def test_later_volumes_continue_their_file(rar5: bool, volume: int, last: bool) -> None:
    """A later volume's header says it is not the first and continues the file (the
    article pass lists the file a lone later volume holds part of)."""
    entry = Entry("Real.Name.2019.1080p.BluRay.x264-GRP.mkv", 5_000_000_000)
    if rar5:
        head = rar5_head(entry, 99_000_000, SALT, volume, last)
    else:
        head = rar4_head(entry, 99_000_000, True, SALT, volume, last)
    listing = read_rar(head + b"\x5a" * 70_000)
    assert listing.names == [entry.name] and not listing.encrypted
    first = rar5_head(entry, 99_000_000, SALT) if rar5 else rar4_head(entry, 99_000_000, True, SALT)
    assert head != first
    headers: list = []
    parser = (rarfile.RAR5Parser if rar5 else rarfile.RAR3Parser)(
        io.BytesIO(head), None, True, rarfile.DEFAULT_CHARSET, False, headers.append, 0, True
    )
    parser.parse()
    main, info = headers[:2]
    if rar5:
        assert main.main_volume_number == volume
        assert info.block_flags & 0x0008 and bool(info.block_flags & 0x0010) != last
    else:
        assert main.flags & rarfile.RAR_MAIN_VOLUME and not main.flags & 0x0100  # first
        assert info.flags & rarfile.RAR_FILE_SPLIT_BEFORE
        assert bool(info.flags & rarfile.RAR_FILE_SPLIT_AFTER) != last


@pytest.mark.parametrize(("password", "hide"), [(None, False), ("pw", False), ("pw", True)])
def test_py7zr_reads_a_set_from_its_two_ends(password: str | None, hide: bool) -> None:
    entries = [("Real.Name.2019.1080p.mkv", 3_000_000_000)]
    total = 3_100_000_123
    ends = seven_zip_ends(entries, total, password, hide, b"seed")
    assert ends == seven_zip_ends(entries, total, password, hide, b"seed")
    offset, size = struct.unpack_from("<QQ", ends.head, 12)
    assert 32 + offset + size == total  # the header ends the set of the posted size

    def opened(pw: str | None) -> py7zr.SevenZipFile:
        return py7zr.SevenZipFile(
            io.BufferedReader(Sparse(ends.head, ends.tail, total)), password=pw
        )

    with opened(password) as z:
        assert [(f.filename, f.uncompressed) for f in z.list()] == entries
        assert z.needs_password() == (password is not None)
    if hide:
        with pytest.raises(py7zr.exceptions.PasswordRequired):
            opened(None)


@pytest.mark.parametrize("password", [None, "secret"])
def test_zip_heads(password: str | None) -> None:
    head = zip_head(["Real.Name.pdf"], password, b"seed")
    assert head == zip_head(["Real.Name.pdf"], password, b"seed")
    assert head.startswith(b"PK\x03\x04")
    with zipfile.ZipFile(io.BytesIO(head)) as z:
        (info,) = z.infolist()
        assert info.filename == "Real.Name.pdf"
        assert bool(info.flag_bits & 0x1) == (password is not None)
