"""inspect_body over real data: the shared yEnc samples and archives, and sets made here by
the real tools (py7zr, zipfile, pyzipper, Debian's par2)."""

from __future__ import annotations

import hashlib
import io
import os
import random
import shutil
import subprocess
import zipfile
import zlib
from pathlib import Path

import pytest

from pipelines.probe import inspection as ins
from pipelines.probe.inspect import inspect_body
from pipelines.probe.yenc import decode_part, encode_part
from tests.probe_bodies import body_of, first_part, last_part
from tests.shared_data import DATA, needs_data

ARCHIVES = DATA / "archives"
ARTICLES = DATA / "articles"

# -- yEnc ----------------------------------------------------------------------------------

# the samples that are whole, good parts: (file, the name =ybegin states)
GOOD_YENC = {
    "sabctools/test_regular.yenc": "90E2Sdvsmds0801dvsmds90E.part06.rar",
    "sabctools/test_regular_2.yenc": "Applideck Revenue 980788779079648.z12",
    "sabctools/test_special_chars.yenc": "90E2Sdvsmds0801dvsmds90Eééé.part06.rar",
    "sabctools/test_special_utf8_chars.yenc": "Hi Kingdom 你好世界.txt",
    "sabctools/test_padded_crc.yenc": "The Man In The Bowler Hat 1973.vol015+016.par2",
    "sabctools/test_article.yenc": "sometestfile-100MB.part01.rar",
    "sabctools/test_bad_crc.yenc": "4fd5dbf1db9b34ad2835d4079003627b.r07",  # its CRC holds
    "yenc_spec/singlepart/00000005.ntx": "testfile.txt",
    "yenc_spec/singlepart/test (1.2).ntx": "test (1.2).txt",
    "yenc_spec/multipart/00000020.ntx": "joystick.jpg",
    "yenc_spec/multipart/00000021.ntx": "joystick.jpg",
    "yenc_spec/multipart/test (1.2).ntx": "test (1.2).txt",
}


@needs_data("articles")
@pytest.mark.parametrize("sample", sorted(GOOD_YENC))
def test_yenc_samples_decode_to_their_names_and_crcs(sample):
    body = body_of(ARTICLES / sample)
    part = decode_part(body)
    assert part.problem == "", part.detail
    assert part.name == GOOD_YENC[sample]
    # the =yend CRC's last 8 digits (one sample pads it to 16)
    stated = body[body.rfind(b"=yend ") :].split(b"crc32=")[-1].split()[0][-8:]
    assert zlib.crc32(part.data) == int(stated, 16)
    result = inspect_body(body)
    assert result.status != ins.BAD_YENC and result.status != ins.BAD_CRC
    assert result.yenc_name == GOOD_YENC[sample]


@needs_data("articles")
def test_malformed_yenc_samples_are_counted_never_raised():
    malformed = [
        p
        for p in sorted((ARTICLES / "sabctools").glob("*.yenc"))
        + sorted((ARTICLES / "yenc_spec").glob("*/*.ntx"))
        if str(p.relative_to(ARTICLES)) not in GOOD_YENC and "test_no_name" not in p.name
    ]
    assert len(malformed) > 30
    for path in malformed:
        result = inspect_body(body_of(path))
        assert result.status in (ins.BAD_YENC, ins.BAD_CRC), (path.name, result)
        assert result.detail


def test_bad_crc_cut_body_and_garbage():
    data = random.Random(1).randbytes(50_000)
    body = encode_part(data, "x.bin", file_size=200_000, total=4)
    flipped = bytearray(body)
    flipped[len(body) // 2] ^= 0x01  # one data byte: still yEnc, the CRC no longer holds
    assert inspect_body(bytes(flipped)).status == ins.BAD_CRC
    cut = body[: len(body) // 2]
    assert inspect_body(cut).status == ins.BAD_YENC
    head = body[: body.find(b"\r\n", body.find(b"=ypart")) + 2]
    assert inspect_body(head + random.Random(2).randbytes(5000)).status == ins.BAD_YENC
    assert inspect_body(b"").status == ins.BAD_YENC
    assert inspect_body(random.Random(3).randbytes(10_000)).status == ins.BAD_YENC
    garbage = inspect_body(encode_part(data, "x.bin", file_size=200_000, total=4))
    assert (garbage.status, garbage.kind, garbage.yenc_name) == (ins.ERROR, ins.OTHER, "x.bin")


# -- the shared archives -------------------------------------------------------------------

ENCRYPTED = {
    # rarfile's: -p and -hp, password "password"
    "rarfile/rar3-comment-psw.rar",
    "rarfile/rar3-comment-hpsw.rar",
    "rarfile/rar5-psw.rar",
    "rarfile/rar5-hpsw.rar",
    "rarfile/rar5-psw-blake.rar",
    "rarfile/rar202-comment-psw.rar",
    # py7zr's: AES data, and header encryption (-mhe)
    "py7zr/encrypted_1.7z",
    "py7zr/encrypted_2.7z",
    "py7zr/encrypted_3.7z",
    "py7zr/encrypted_4.7z",
    "py7zr/encrypted_5.7z",
    "py7zr/encrypted_6.7z",
    "py7zr/filename_encryption.7z",
    # ZipCrypto and WinZip AES
    "zip/aes-keka.zip",
    "zip/hello-aes.zip",
    "zip/world-aes.zip",
    "zip/zip-aes-128.zip",
    "zip/zip-aes-256.zip",
    "zip/zipWithEncryption.zip",
    "zip/zipWithStoredCompressionAndEncryption.zip",
    "sabnzbd/test_passworded{{secret}}/passworded-file.rar",
}


def _encrypted(rel: str) -> bool:
    # nzbget's sets say it in their names (password "123"); sabnzbd's -hp set by its folder
    return (
        rel in ENCRYPTED
        or "encdata" in rel
        or "encnam" in rel
        or rel.startswith("sabnzbd/fully_encrypted_and_obfuscated_rars/")
    )


def _archive_files() -> list[str]:
    if not ARCHIVES.is_dir():
        return []
    return sorted(
        str(p.relative_to(ARCHIVES))
        for p in ARCHIVES.rglob("*")
        if p.is_file() and not p.name.endswith((".tar.gz", ".exp", ".txt", ".sfv"))
    )


@needs_data("archives")
@pytest.mark.parametrize("rel", _archive_files())
def test_each_shared_file_as_its_first_part(rel):
    data = (ARCHIVES / rel).read_bytes()
    result = inspect_body(first_part(data, "obfuscated.bin"))
    assert result.status in (ins.OK, ins.ERROR), result
    if _encrypted(rel):
        assert result.encrypted is True, result
        assert result.kind in (ins.RAR, ins.SEVEN_ZIP, ins.ZIP)
    else:
        assert result.encrypted is not True, result
    if data.startswith(b"Rar!"):
        assert result.kind == ins.RAR
        assert result.names or result.encrypted, result
    if data.startswith(b"7z\xbc\xaf"):
        assert result.kind == ins.SEVEN_ZIP


# 7z archives as a set's last part: single archives, and the last volumes of split ones
SEVEN_ZIP_TAILS = [
    *(f"py7zr/{p.name}" for p in sorted((ARCHIVES / "py7zr").glob("*.7z")) if ARCHIVES.is_dir()),
    "py7zr/archive.7z.002",
    "nzbget/parchecker2/testfile.7z.003",
    "sabnzbd/test_7zip/testfile.7z",
]
# what no tail shows: nothing after the start header, or bytes after the end header
NO_TAIL = {"py7zr/empty.7z", "py7zr/extra_payload_data.7z"}


@needs_data("archives")
@pytest.mark.parametrize("rel", [r for r in SEVEN_ZIP_TAILS if r not in NO_TAIL])
def test_7z_from_its_last_part(rel):
    data = (ARCHIVES / rel).read_bytes()
    result = inspect_body(last_part(data, "obfuscated.bin"))
    assert (result.status, result.kind) == (ins.OK, ins.SEVEN_ZIP), result
    assert result.encrypted is _encrypted(rel)
    if rel not in ("py7zr/encrypted_3.7z", "py7zr/encrypted_4.7z", "py7zr/filename_encryption.7z"):
        assert result.names, result  # only -mhe hides them


@needs_data("archives")
def test_rar_listing_names_and_sizes():
    data = (ARCHIVES / "sabnzbd/basic_rar5/testfile.rar").read_bytes()
    result = inspect_body(first_part(data, "a.bin"))
    assert result.names == ["Testfile_1234.bin", "testfile.bin", "My_Test_Download.bin"]
    assert result.sizes == [102400] * 3
    assert result.encrypted is False
    data = (ARCHIVES / "sabnzbd/unicode_rar/我喜欢编程.part1.rar").read_bytes()
    assert inspect_body(first_part(data, "b.bin")).names == ["我喜欢编程_My_Test_Download.bin"]


# -- sets made here by the real tools ------------------------------------------------------


def _big(seed: int, size: int) -> bytes:
    return random.Random(seed).randbytes(size)


@pytest.mark.parametrize(
    ("password", "header_encryption"), [(None, False), ("pw", False), ("pw", True)]
)
def test_py7zr_sets(tmp_path, password, header_encryption):
    py7zr = pytest.importorskip("py7zr")
    path = tmp_path / "set.7z"
    with py7zr.SevenZipFile(
        path, "w", password=password, header_encryption=header_encryption
    ) as archive:
        archive.writestr(_big(1, 1_600_000), "Some.Show.S01E01.1080p-GRP.mkv")
        archive.writestr(b"nfo text", "Some.Show.S01E01.1080p-GRP.nfo")
    data = path.read_bytes()
    assert len(data) > 2 * 750_000
    start = inspect_body(first_part(data, "x.7z.001"))
    assert (start.status, start.kind, start.encrypted) == (ins.OK, ins.SEVEN_ZIP, None)
    tail = inspect_body(last_part(data, "x.7z.003"))
    assert (tail.status, tail.kind) == (ins.OK, ins.SEVEN_ZIP), tail
    assert tail.encrypted is (password is not None)
    if header_encryption:
        assert tail.names == []
    else:
        assert sorted(tail.names) == [
            "Some.Show.S01E01.1080p-GRP.mkv",
            "Some.Show.S01E01.1080p-GRP.nfo",
        ]
        assert sorted(s or 0 for s in tail.sizes) == [8, 1_600_000]


def test_zipfile_set():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("Inner.Release-GRP.rar", _big(2, 10_000))
        archive.writestr("readme.txt", b"hello")
    result = inspect_body(first_part(buffer.getvalue(), "x.zip"))
    assert (result.kind, result.encrypted) == (ins.ZIP, False)
    assert result.names == ["Inner.Release-GRP.rar", "readme.txt"]
    assert result.sizes == [10_000, 5]
    assert result.inner_archive is True


def test_pyzipper_aes_set():
    pyzipper = pytest.importorskip("pyzipper")
    buffer = io.BytesIO()
    with pyzipper.AESZipFile(
        buffer, "w", compression=pyzipper.ZIP_STORED, encryption=pyzipper.WZ_AES
    ) as archive:
        archive.setpassword(b"secret")
        archive.writestr("movie.mkv", _big(3, 900_000))
    result = inspect_body(first_part(buffer.getvalue(), "x.zip"))
    assert (result.kind, result.encrypted, result.names) == (ins.ZIP, True, ["movie.mkv"])


PAR2 = shutil.which("par2")


@pytest.mark.skipif(PAR2 is None, reason="Debian's par2 (par2cmdline) is not installed")
def test_par2cmdline_set(tmp_path):
    files = {
        "Some.Movie.2020.1080p.BluRay-GRP.mkv": _big(4, 40_000),
        "Some.Movie.2020.1080p.BluRay-GRP.nfo": b"an nfo" * 10,
        "sample.mkv": _big(5, 17_000),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    subprocess.run(
        [str(PAR2), "create", "-q", "-q", "-r10", "-n1", "set.par2", "--", *files],
        cwd=tmp_path,
        check=True,
        env={**os.environ, "LC_ALL": "C"},
    )
    index = (tmp_path / "set.par2").read_bytes()
    result = inspect_body(first_part(index, "a1b2c3.par2"))
    assert (result.status, result.kind, result.encrypted) == (ins.OK, ins.PAR2, None)
    got = dict(zip(result.names, zip(result.sizes, result.hashes, strict=True), strict=True))
    assert got == {
        name: (len(data), hashlib.md5(data[:16384]).digest()) for name, data in files.items()
    }
    assert result.par2_set is not None and len(result.par2_set) == 16
    volume = next(tmp_path.glob("set.vol*.par2")).read_bytes()
    recovery = inspect_body(first_part(volume, "d4e5f6.par2"))
    assert recovery.kind == ins.PAR2 and recovery.par2_set == result.par2_set
    assert sorted(recovery.names) == sorted(files)
    cut = inspect_body(first_part(index[: len(index) // 2], "cut.par2"))
    assert (cut.status, cut.kind, cut.par2_set) == (ins.OK, ins.PAR2, result.par2_set)
    assert set(cut.names) <= set(files)


# -- text and media ------------------------------------------------------------------------


def test_nfo_title_and_password():
    nfo = (
        "░▒▓█████████████████▓▒░\r\n  ╔══ PRESENTS ══╗\r\n\r\n"
        "   Some.Movie.2019.1080p.BluRay.x264-GRP\r\n\r\n"
        "  Password: s3cr3t!\r\n  ╚═══════════════╝\r\n"
    ).encode("cp437")
    result = inspect_body(first_part(nfo, "0a1b2c3d"))
    assert (result.kind, result.nfo_title) == (ins.NFO, "Some.Movie.2019.1080p.BluRay.x264-GRP")
    assert result.password_text == "s3cr3t!"
    field = inspect_body(first_part(b"Title: The Big Show (2019)\r\nSize: 4 GB\r\n", "a.nfo"))
    assert (field.kind, field.nfo_title) == (ins.NFO, "The Big Show (2019)")


@needs_data("archives")
def test_shared_nfo_is_an_nfo():
    data = (ARCHIVES / "nzbget/parchecker/testfile.nfo").read_bytes()
    assert inspect_body(first_part(data, "testfile.nfo")).kind == ins.NFO


MEDIA = {
    b"\x1a\x45\xdf\xa3\x01\x00": ins.MEDIA,
    b"\x00\x00\x00\x20ftypisom": ins.MEDIA,
    b"RIFF\x00\x00\x00\x00AVI LIST": ins.MEDIA,
    b"ID3\x04\x00": ins.MEDIA,
    b"fLaC\x00\x00": ins.MEDIA,
    b"\xff\xd8\xff\xe0": ins.MEDIA,
    b"\x89PNG\r\n\x1a\n": ins.MEDIA,
    b"%PDF-1.7": ins.MEDIA,
    b"PK\x03\x04" + bytes(26) + b"mimetypeapplication/epub+zip": ins.MEDIA,
    b"MZ\x90\x00": ins.PROGRAM,
    b"\x7fELF\x02\x01": ins.PROGRAM,
}


@pytest.mark.parametrize("magic", sorted(MEDIA))
def test_media_and_programs_by_first_bytes(magic):
    result = inspect_body(first_part(magic + _big(6, 5000), "x"))
    assert (result.status, result.kind) == (ins.OK, MEDIA[magic])


def test_mp3_frames():
    frame = b"\xff\xfb\x90\x00" + bytes(413)  # 128 kbit/s, 44.1 kHz: 417 bytes
    assert inspect_body(first_part(frame * 5, "x")).kind == ins.MEDIA


def test_results_are_deterministic():
    body = first_part(b"Rar!\x1a\x07\x01\x00" + _big(7, 5000), "x")
    assert inspect_body(body) == inspect_body(body)


@needs_data("archives", "par2cmdline")
def test_par2cmdline_shared_set_names_sizes_and_hashes():
    import tarfile

    folder = ARCHIVES / "par2cmdline"
    with tarfile.open(folder / "flatdata.tar.gz") as tar:
        files = {
            Path(m.name).name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }
    assert sorted(files) == sorted((folder / "flatdata-filelist.txt").read_text().split())
    with tarfile.open(folder / "flatdata-par2files.tar.gz") as tar:
        par2s = {
            Path(m.name).name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }
    truth = {name: (len(d), hashlib.md5(d[:16384]).digest()) for name, d in files.items()}
    sets = set()
    for name, data in sorted(par2s.items()):
        result = inspect_body(first_part(data, name))
        assert (result.status, result.kind) == (ins.OK, ins.PAR2), name
        sets.add(result.par2_set)
        got = dict(zip(result.names, zip(result.sizes, result.hashes, strict=True), strict=True))
        if len(data) <= 750_000:  # a whole file: every description is in it
            assert got == truth, name
        else:
            assert got.items() <= truth.items(), name
    assert len(sets) == 1
