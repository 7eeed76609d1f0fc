"""The corpus writer and reader on good and on broken corpora (CORPUS.md's survival list)."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest

from pipelines.corpus.check import check_corpus
from pipelines.corpus.codec import empty_stream, inflate, sniff
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.manifest import ManifestError, RangeManifest
from pipelines.corpus.reader import CorpusReader, RangeReport
from pipelines.corpus.writer import CorpusWriter

GROUP = "alt.binaries.test"


def line(n: int, subject: bytes = b'Some.Thing [1/2] - "a.rar" yEnc (1/3)') -> bytes:
    return (
        b"\t".join(
            [
                str(n).encode(),
                subject,
                b"poster <p@example.com>",
                b"Mon, 01 Jan 2024 10:00:00 +0000",
                f"<part{n}@example.com>".encode(),
                b"",
                b"750000",
                b"5800",
                f"Xref: news.example.com {GROUP}:{n}".encode(),
            ]
        )
        + b"\r\n"
    )


def lines(a: int, b: int) -> bytes:
    return b"".join(line(n) for n in range(a, b + 1))


def write_range(root: Path, first: int = 1, last: int = 100, chunk: int = 25, codec: str = "zlib"):
    writer = CorpusWriter(str(root), codec=codec)
    ref = RangeRef(GROUP, first, last)
    entries = [
        writer.write_chunk(ref, a, min(a + chunk - 1, last), lines(a, min(a + chunk - 1, last)))
        for a in range(first, last + 1, chunk)
    ]
    writer.write_manifest(ref, entries, complete=True, server="test")
    return ref, entries


def read_all(root: Path, ref: RangeRef) -> tuple[list, RangeReport]:
    reader = CorpusReader(str(root))
    info = reader.range_info(ref)
    report = RangeReport(ref.group, ref.first, ref.last)
    return list(reader.read_range(info, report)), report


@pytest.mark.parametrize("codec", ["zlib", "gzip"])
def test_round_trip(tmp_path, codec):
    ref, entries = write_range(tmp_path, codec=codec)
    reader = CorpusReader(str(tmp_path))
    assert reader.groups() == [GROUP]
    assert [i.ref for i in reader.complete_ranges(GROUP)] == [ref]
    chunks, report = read_all(tmp_path, ref)
    assert [(c.first, c.last) for c in chunks] == [(e.first, e.last) for e in entries]
    assert b"".join(c.data for c in chunks) == lines(1, 100)
    assert report.complete and report.lines == report.lines_ok == 100 and not report.bad_lines
    assert [int(n) for c in chunks for n in c.lines.number] == list(range(1, 101))


def test_codec_is_told_by_bytes_not_by_name(tmp_path):
    ref, entries = write_range(tmp_path, codec="zlib")
    folder = Path(ref.path(str(tmp_path)))
    # store a gzip stream under the zlib name: the reader must still read it
    (folder / entries[0].file).write_bytes(gzip.compress(lines(1, 25)))
    _chunks, report = read_all(tmp_path, ref)
    assert report.complete and report.lines_ok == 100


def test_the_codec_knows_the_empty_stream_from_no_bytes():
    for codec in ("zlib", "gzip"):
        assert sniff(empty_stream(codec)) == codec
        assert inflate(empty_stream(codec)) == inflate(b"")
    assert sniff(b"") == "empty"
    assert inflate(b"").complete and inflate(b"").data == b""  # the 0-byte files of old


@pytest.mark.parametrize("codec", ["zlib", "gzip"])
def test_an_empty_span_is_stored_as_the_codecs_empty_stream(tmp_path, codec):
    writer = CorpusWriter(str(tmp_path), codec=codec)
    ref = RangeRef(GROUP, 1, 100)
    # capture hands an empty span over as no bytes at all; the generator as lines of none
    given = writer.write_compressed_chunk(ref, 1, 40, b"", 0, codec)
    made = writer.write_chunk(ref, 41, 50, b"")
    full = writer.write_chunk(ref, 51, 100, lines(51, 100))
    writer.write_manifest(ref, [given, made, full], complete=True)
    folder = Path(ref.path(str(tmp_path)))
    for entry in (given, made):
        stored = (folder / entry.file).read_bytes()
        assert stored == empty_stream(codec) and entry.bytes == len(stored) > 0
        assert entry.lines == 0
        # any other reader takes it: the standard library's own decoders, strictly
        whole = zlib.decompress(stored) if codec == "zlib" else gzip.decompress(stored)
        assert whole == b""
    chunks, report = read_all(tmp_path, ref)
    assert report.complete and report.chunks_truncated == 0 and report.lines == 50
    assert [c.whole for c in chunks] == [True, True, True]
    assert [e.first for e in writer.stored_chunks(ref)] == [1, 41, 51]


def test_zero_byte_chunk_files_stored_before_are_read_as_empty_spans(tmp_path, capsys):
    ref, entries = write_range(tmp_path, chunk=25)
    folder = Path(ref.path(str(tmp_path)))
    # how captures used to store an empty span: a 0-byte file, listed in range.json
    (folder / entries[1].file).write_bytes(b"")
    chunks, report = read_all(tmp_path, ref)
    assert report.complete and report.chunks_truncated == 0 and not report.problems
    assert [len(c.lines) for c in chunks] == [25, 0, 25, 25]
    assert chunks[1].whole and chunks[1].data == b""
    # a resumed capture keeps it instead of fetching it again, and the check passes it
    assert [e.file for e in CorpusWriter(str(tmp_path)).stored_chunks(ref)] == [
        e.file for e in entries
    ]
    assert check_corpus(str(tmp_path)).clean


def test_bad_lines_are_counted_not_fatal(tmp_path):
    writer = CorpusWriter(str(tmp_path))
    ref = RangeRef(GROUP, 1, 50)
    body = (
        lines(1, 5)
        + b"6\tonly\tthree\r\n"  # too few fields
        + b"x7"
        + line(7)[1:]  # non-numeric number
        + line(999)  # outside the chunk
        + line(3)  # duplicate
        + b"\r\n"  # empty line
        + line(8, b'Caf\xe9 latin-1 [1/1] - "c.mkv" yEnc (1/1)')  # Latin-1 bytes
        + line(9, b"bad \xff\xfe utf8")
        + lines(10, 50)
    )
    entry = writer.write_chunk(ref, 1, 50, body)
    writer.write_manifest(ref, [entry], complete=True)
    _chunks, report = read_all(tmp_path, ref)
    assert report.bad_lines == {
        "too_few_fields": 2,
        "bad_number": 1,
        "out_of_span": 1,
        "duplicate": 1,
    }
    assert report.lines_ok == 48 and report.non_utf8_lines == 2
    assert report.complete  # bad lines do not make the range incomplete


@pytest.mark.parametrize("damage", ["truncate", "corrupt", "garbage"])
def test_damaged_chunk_keeps_the_lines_before_the_break(tmp_path, damage):
    ref, entries = write_range(tmp_path, last=100, chunk=50)
    path = Path(ref.path(str(tmp_path))) / entries[0].file
    payload = zlib.compress(lines(1, 50), 9)
    if damage == "truncate":
        payload = payload[: len(payload) // 2]
    elif damage == "corrupt":
        payload = payload[:-4] + bytes(4)  # the checksum breaks
    else:
        payload = b"this is not a compressed stream"
    path.write_bytes(payload)
    chunks, report = read_all(tmp_path, ref)
    assert report.chunks_truncated == 1 and report.incomplete_from == 1
    assert not report.complete and report.problems
    good_first = chunks[0].data
    assert lines(1, 50).startswith(good_first)
    ok_numbers = [int(n) for n in chunks[0].lines.number[chunks[0].lines.ok()]]
    assert ok_numbers == list(range(1, len(ok_numbers) + 1))
    # the next chunk is read whole: nothing after the break is lost
    assert [int(n) for n in chunks[1].lines.number] == list(range(51, 101))
    if damage == "truncate":
        assert 0 < len(ok_numbers) < 50
        assert report.bad_lines.get("unterminated", 0) <= 1


def test_missing_chunk_file(tmp_path):
    ref, entries = write_range(tmp_path)
    (Path(ref.path(str(tmp_path))) / entries[1].file).unlink()
    chunks, report = read_all(tmp_path, ref)
    assert len(chunks) == 3 and report.chunks_missing == 1
    assert report.incomplete_from == entries[1].first and not report.complete


def test_missing_and_invalid_manifest(tmp_path):
    ref, _ = write_range(tmp_path)
    manifest = Path(ref.manifest_path(str(tmp_path)))
    manifest.write_text('{"group": "x", "first": "one"')
    reader = CorpusReader(str(tmp_path))
    info = reader.range_info(ref)
    assert not info.complete and "invalid" in info.problem
    assert reader.complete_ranges(GROUP) == []
    chunks, report = read_all(tmp_path, ref)
    assert chunks == [] and not report.complete and "invalid" in report.manifest
    manifest.unlink()
    assert "missing" in reader.range_info(ref).problem


@pytest.mark.parametrize(
    "doc",
    [
        {"group": GROUP, "first": 1, "last": 0, "complete": True, "chunks": []},
        {"group": GROUP, "first": 1, "last": 9, "complete": "yes", "chunks": []},
        {"group": GROUP, "first": 1, "last": 9, "complete": True, "chunks": [{"file": "../x"}]},
        {
            "group": GROUP,
            "first": 1,
            "last": 9,
            "complete": True,
            "chunks": [{"file": "a", "first": 5, "last": 9}, {"file": "b", "first": 1, "last": 4}],
        },
        [],
    ],
)
def test_manifest_parser_rejects_bad_documents(doc):
    with pytest.raises(ManifestError):
        RangeManifest.loads(json.dumps(doc))


def test_manifest_for_another_folder_is_rejected(tmp_path):
    ref, _entries = write_range(tmp_path)
    other = RangeRef(GROUP, 1000, 1099)
    Path(other.path(str(tmp_path))).mkdir(parents=True)
    Path(other.manifest_path(str(tmp_path))).write_bytes(
        Path(ref.manifest_path(str(tmp_path))).read_bytes()
    )
    assert "not its folder" in CorpusReader(str(tmp_path)).range_info(other).problem


def test_incomplete_manifest_is_not_a_complete_range(tmp_path):
    writer = CorpusWriter(str(tmp_path))
    ref = RangeRef(GROUP, 1, 100)
    entry = writer.write_chunk(ref, 1, 50, lines(1, 50))
    writer.write_manifest(ref, [entry], complete=False)
    assert CorpusReader(str(tmp_path)).complete_ranges(GROUP) == []
    with pytest.raises(ValueError):
        writer.write_manifest(ref, [entry], complete=True)  # does not cover 51-100


def test_interrupted_write_leaves_the_previous_state(tmp_path, monkeypatch):
    ref, entries = write_range(tmp_path)
    before = {p: p.read_bytes() for p in Path(ref.path(str(tmp_path))).iterdir()}
    fs, _ = open_fs(str(tmp_path))

    def crash(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(fs, "mv", crash)
    writer = CorpusWriter(str(tmp_path))
    writer.fs = fs
    with pytest.raises(OSError):
        writer.write_chunk(ref, 1, 25, lines(1, 25) + line(26))
    with pytest.raises(OSError):
        writer.write_manifest(ref, entries[:1], complete=False)
    after = {p: p.read_bytes() for p in Path(ref.path(str(tmp_path))).iterdir()}
    assert after == before  # no temp file left, the old files untouched
    _chunks, report = read_all(tmp_path, ref)
    assert report.complete and report.lines_ok == 100


def test_stray_temporary_files_are_ignored(tmp_path):
    ref, entries = write_range(tmp_path)
    folder = Path(ref.path(str(tmp_path)))
    (folder / f"{entries[0].file}.tmp-deadbeef").write_bytes(b"half a chunk")
    writer = CorpusWriter(str(tmp_path))
    assert [e.file for e in writer.stored_chunks(ref)] == [e.file for e in entries]
    assert check_corpus(str(tmp_path)).clean


def test_atomic_put_replaces_whole_files(tmp_path):
    fs, root = open_fs(str(tmp_path))
    target = f"{root}/a/b/file.bin"
    atomic_put(fs, target, b"one")
    atomic_put(fs, target, b"two")
    assert Path(target).read_bytes() == b"two"
    assert sorted(p.name for p in Path(target).parent.iterdir()) == ["file.bin"]


def test_fsspec_memory_filesystem():
    import fsspec

    fsspec.filesystem("memory").rm("/corpus", recursive=True) if fsspec.filesystem("memory").exists(
        "/corpus"
    ) else None
    writer = CorpusWriter("memory://corpus")
    ref = RangeRef(GROUP, 1, 10)
    writer.write_manifest(ref, [writer.write_chunk(ref, 1, 10, lines(1, 10))], complete=True)
    reader = CorpusReader("memory://corpus")
    info = reader.complete_ranges(GROUP)[0]
    assert sum(len(c.lines) for c in reader.read_range(info)) == 10


def test_check_reports_problems(tmp_path, capsys):
    import io

    ref, entries = write_range(tmp_path)
    (Path(ref.path(str(tmp_path))) / entries[2].file).unlink()
    out = io.StringIO()
    summary = check_corpus(str(tmp_path), out=out)
    assert not summary.clean and summary.missing == 1
    assert "INCOMPLETE" in out.getvalue() and "missing" in out.getvalue()
