"""The generator's stored bodies: real yEnc parts of real file heads (and 7z tails) whose
par2 sets and archive listings say what the truth says; the same seed the same bodies;
serve-nntp serves them by message-id."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import py7zr
import pyarrow.parquet as pq
import pytest
import rarfile
import sabctools

from pipelines.articles.store import BODIES_FILE, open_bodies
from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.generate.contents.names import stem_of, usable_stem
from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import NoArticle
from pipelines.nntp.provider import Provider
from pipelines.nntp.wire import stuff
from pipelines.nntpserver.server import NNTPServer

CONFIG = GenerateConfig(groups=2, articles=20_000, seed=3)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bodies")
    generate_corpus(str(out), CONFIG)
    return out


def decode(body: bytes) -> sabctools.NNTPResponse:
    """The yEnc part of a body, decoded by sabctools as it comes off the wire."""
    wire = b"222 0 <x>\r\n" + stuff(body) + b".\r\n"
    decoder = sabctools.Decoder(len(wire) + 1024)
    decoder.expect(None)
    view = memoryview(decoder)
    view[: len(wire)] = wire
    view.release()
    decoder.process(len(wire))
    (response,) = list(decoder)
    return response


def truth(root: Path) -> list[dict]:
    return pq.read_table(root / "truth" / "uploads.parquet").to_pylist()


def par2_names(data: bytes) -> list[tuple[str, int]]:
    """File names and sizes of a par2 index's file-description packets."""
    out, at = [], data.find(b"PAR2\0PKT")
    while at >= 0 and at + 64 <= len(data):
        (length,) = struct.unpack_from("<Q", data, at + 8)
        if data[at + 48 : at + 64] == b"PAR 2.0\0FileDesc":
            (size,) = struct.unpack_from("<Q", data, at + 64 + 48)
            out.append((data[at + 64 + 56 : at + length].rstrip(b"\0").decode(), size))
        at = data.find(b"PAR2\0PKT", at + max(length, 8))
    return out


class Sparse(io.RawIOBase):
    """A 7z archive of `total` bytes of which only the signature header and the tail are
    known: what a reader of the first and the last article has."""

    def __init__(self, head: bytes, tail: bytes, total: int) -> None:
        self.head, self.tail, self.total, self.pos = head, tail, total, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = 0) -> int:
        self.pos = (pos, self.pos + pos, self.total + pos)[whence]
        return self.pos

    def tell(self) -> int:
        return self.pos

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        n = max(0, min(len(b), self.total - self.pos))
        start = self.total - len(self.tail)
        out = bytearray(n)
        for i in range(n):
            q = self.pos + i
            out[i] = self.head[q] if q < len(self.head) else (
                self.tail[q - start] if q >= start else 0)  # fmt: skip
        b[:n] = out
        self.pos += n
        return n


def test_every_body_decodes_with_its_crc(generated: Path) -> None:
    store = open_bodies(str(generated / "corpus"))
    assert store is not None and len(store) > 100
    for mid in store.message_ids():
        row = store.row(mid)
        assert row is not None
        r = decode(store.body(mid) or b"")
        data = bytes(r.data)
        assert r.format == sabctools.EncodingFormat.YENC
        assert r.crc == r.crc_expected == zlib.crc32(data)
        assert r.file_name == row["name"] and r.file_size == row["file_size"]
        if row["part"] == 1:
            assert data.startswith(bytes(row["head"])[: len(data)])
        if row["part"] == row["total"] and row["tail"]:
            assert data.endswith(bytes(row["tail"]))


def first_bodies(store, upload: dict) -> dict[str, bytes]:
    out = {}
    for f in upload["files"]:
        body = store.body(f["message_ids"][0])
        if body is not None:
            out[f["name"]] = bytes(decode(body).data)
    return out


def seven_zip_listing(store, upload: dict, password: str | None = None) -> list[str]:
    """The names a 7z set's header lists, read from its first volume's signature header
    and its last volume's last article only."""
    sevens = sorted(
        (f for f in upload["files"] if ".7z." in f["name"]), key=lambda f: f["name"][-3:]
    )
    head = bytes(store.row(sevens[0]["message_ids"][0])["head"])
    offset, size = struct.unpack_from("<QQ", head, 12)
    tail = bytes(decode(store.body(sevens[-1]["message_ids"][-1])).data)
    reader = io.BufferedReader(Sparse(head, tail, 32 + offset + size), 1 << 16)
    with py7zr.SevenZipFile(reader, password=password) as z:
        return [f.filename for f in z.list()]


def listing(store, upload: dict) -> tuple[list[str], bool] | None:
    """(names, needs a password) of the archive an upload's first volume starts."""
    for name, data in first_bodies(store, upload).items():
        low = name.lower()
        if low.endswith(".rar") and (".part" not in low or stem_of(name) != name):
            if ".part" in low and int(low.rsplit(".part", 1)[1].split(".")[0]) != 1:
                continue
            rf = rarfile.RarFile(io.BytesIO(data))
            return [i.filename for i in rf.infolist()], rf.needs_password()
    return None


def test_the_truth_names_what_the_bodies_carry(generated: Path) -> None:
    store = open_bodies(str(generated))
    assert store is not None
    rows = truth(generated)
    carriers = {r["name_carrier"] for r in rows if r["kind"] == "obfuscated"}
    assert {"par2", "none"} <= carriers
    checked = 0
    for u in rows:
        bodies = first_bodies(store, u)
        carrier = u["name_carrier"]
        if carrier == "par2":
            index = next(d for n, d in bodies.items() if n.endswith(".par2") and ".vol" not in n)
            assert usable_stem(par2_names(index)) == u["inner_name"]
            checked += 1
        elif carrier == "archive" and listing(store, u) is not None:
            names, _ = listing(store, u)
            assert stem_of(names[0]) == u["inner_name"]
            checked += 1
        elif carrier == "7z":
            assert stem_of(seven_zip_listing(store, u)[0]) == u["inner_name"]
            checked += 1
        elif carrier == "none":
            assert u["inner_name"] is None
            assert u["kind"] == "obfuscated"
        if u["kind"] == "obfuscated":
            assert u["inner_name"] != u["name"]
            found = listing(store, u)
            if found is not None:
                assert found[1] == u["passworded"]
    assert checked > 20


def test_passworded_archives_need_their_password(tmp_path: Path) -> None:
    """Over a few seeds, every passworded RAR set's first volume needs a password, 7z sets
    with hidden names list nothing without it; the unencrypted ones list their names."""
    seen = {True: 0, False: 0}
    for seed in (1, 2, 4):
        out = tmp_path / str(seed)
        generate_corpus(str(out), GenerateConfig(groups=1, articles=15_000, seed=seed))
        store = open_bodies(str(out))
        for u in truth(out):
            found = listing(store, u)
            if found is not None:
                assert found[1] == u["passworded"], u["name"]
                seen[u["passworded"]] += 1
    assert seen[True] and seen[False]


def test_same_seed_same_bodies(generated: Path, tmp_path: Path) -> None:
    generate_corpus(str(tmp_path), CONFIG)
    assert (tmp_path / BODIES_FILE).read_bytes() == (generated / BODIES_FILE).read_bytes()
    other = tmp_path / "other"
    generate_corpus(str(other), GenerateConfig(groups=2, articles=20_000, seed=4))
    assert (other / BODIES_FILE).read_bytes() != (generated / BODIES_FILE).read_bytes()


def test_bodies_leave_the_overview_and_truth_as_they_were(generated: Path, tmp_path: Path) -> None:
    generate_corpus(str(tmp_path), CONFIG, bodies=False)
    assert not (tmp_path / BODIES_FILE).exists()
    assert open_bodies(str(tmp_path)) is None
    for chunk in (generated / "corpus").rglob("*.xover.zz"):
        assert chunk.read_bytes() == (tmp_path / chunk.relative_to(generated)).read_bytes()
    assert truth(tmp_path) == truth(generated)


def test_serve_nntp_serves_the_stored_bodies(generated: Path) -> None:
    store = open_bodies(str(generated))
    assert store is not None
    with NNTPServer(str(generated / "corpus")) as srv:
        client = NNTPClient(Provider("127.0.0.1", srv.port, timeout=10.0)).connect()
        try:
            for mid in list(store.message_ids())[:25]:
                body = client.body(f"<{mid}>")
                assert body == store.body(mid)
                assert client.article(f"<{mid}>").endswith(b"\r\n\r\n" + body)
                assert b"Message-ID: <" + mid.encode() + b">" in client.head(f"<{mid}>")
                assert client.stat(f"<{mid}>")[1] == f"<{mid}>"
            with pytest.raises(NoArticle) as missing:
                client.body("<not-in-this-corpus@example>")
            assert missing.value.code == 430
        finally:
            client.quit()
