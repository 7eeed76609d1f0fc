"""The NZB 1.1 writer and the per-file merge: DTD-valid, parsed alike by an independent parser."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from nzb import Nzb

from pipelines.catalog.schema import RELEASE_FILES
from pipelines.nzb.assemble import head_meta, merge_file_rows
from pipelines.nzb.writer import DTD_PATH, NzbFile, nzb_file_name, write_nzb
from tests import shared_data

DTD = etree.DTD(str(DTD_PATH))
SHARED_NZB = shared_data.DATA / "nzb"


def _valid(payload: bytes) -> etree._ElementTree:
    doc = etree.ElementTree(etree.fromstring(payload))
    assert DTD.validate(doc), DTD.error_log.filter_from_errors()
    return doc


def _file(subject: str, numbers: list[int], poster: str = "p <p@x>", groups=("a.b.c",)) -> NzbFile:
    return NzbFile(
        subject=subject,
        poster=poster,
        date=1_700_000_000,
        groups=list(groups),
        numbers=np.array(numbers, dtype=np.int32),
        sizes=np.full(len(numbers), 700_000, dtype=np.int32),
        message_ids=[f"part{n}.{subject[:3]}@host" for n in numbers],
    )


def test_document_is_valid_and_parses_with_the_nzb_package():
    files = [_file('"a.part01.rar" yEnc (1/3)', [1, 2, 3]), _file("a.par2", [1])]
    payload = write_nzb(files, head_meta("A.Release", "TV > HD", None))
    _valid(payload)
    parsed = Nzb.from_str(payload.decode())
    assert parsed.meta.title == "A.Release"
    assert [len(f.segments) for f in parsed.files] == [3, 1]
    assert [s.message_id for s in parsed.files[0].segments] == [
        'part1."a.@host',
        'part2."a.@host',
        'part3."a.@host',
    ]
    assert parsed.files[0].groups == ("a.b.c",)
    assert parsed.size == 4 * 700_000


def test_hostile_strings_are_escaped_or_dropped():
    subject = 'x & <y> "z" \x00\x07\x1b ünï 日本 \ud800 end'
    payload = write_nzb([_file(subject, [1], poster="a&b <c@d>")], [("title", "T<&>\x01")])
    doc = _valid(payload)
    ns = {"n": "http://www.newzbin.com/DTD/2003/nzb"}
    got = doc.find(".//n:file", ns).get("subject")
    assert got == 'x & <y> "z"  ünï 日本  end'
    assert doc.find(".//n:meta", ns).text == "T<&>"


def test_message_ids_lose_angle_brackets():
    f = _file("s", [1])
    f = NzbFile(f.subject, f.poster, f.date, f.groups, f.numbers, f.sizes, ["<abc@def>"])
    parsed = Nzb.from_str(write_nzb([f]).decode())
    assert parsed.files[0].segments[0].message_id == "abc@def"


def test_file_names_are_safe_for_content_disposition():
    assert nzb_file_name('a/b\\c:"d"\r\n.mkv') == "a_b_c_d_.mkv.nzb"
    assert nzb_file_name("...") == "release.nzb"
    assert len(nzb_file_name("x" * 1000)) == 204


def _rows(spec: list[tuple[int, str, list[int]]]) -> pa.Table:
    """release_files rows: (written_range, file name, segment numbers)."""
    cols: dict[str, list] = {f.name: [] for f in RELEASE_FILES}
    for written, name, numbers in spec:
        cols["release_key"].append(b"k" * 20)
        cols["written_range"].append(written)
        cols["name"].append(name)
        cols["subject"].append(f'"{name}" yEnc')
        cols["poster"].append("poster")
        cols["date"].append(1000 + written)
        cols["groups"].append(["g1"] if written < 5 else ["g1", "g2"])
        cols["file_index"].append(None)
        cols["part_total"].append(10)
        cols["bytes"].append(len(numbers) * 10)
        cols["seg_numbers"].append(numbers)
        cols["seg_bytes"].append([n * 10 for n in numbers])
        cols["seg_ids"].append([f"{name}.{n}@x" for n in numbers])
    return pa.Table.from_pydict(cols, schema=RELEASE_FILES)


def test_merge_unions_versions_per_file_and_dedups_segments():
    rows = _rows(
        [(9, "b.rar", [5, 3]), (1, "a.rar", [2, 1]), (1, "b.rar", [1, 3]), (9, "a.rar", [3])]
    )
    files = merge_file_rows(rows)
    assert [f.subject for f in files] == ['"a.rar" yEnc', '"b.rar" yEnc']
    assert [f.numbers.tolist() for f in files] == [[1, 2, 3], [1, 3, 5]]
    assert list(files[1].message_ids.to_pylist()) == ["b.rar.1@x", "b.rar.3@x", "b.rar.5@x"]
    assert files[0].date == 1001  # the earliest row's date
    assert list(files[0].groups) == ["g1", "g2"]
    _valid(write_nzb(files))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 9),
            st.sampled_from(["a.rar", "b.rar", "c.mkv"]),
            st.lists(st.integers(1, 40), min_size=1, max_size=12),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_merge_matches_a_plain_union(spec):
    files = merge_file_rows(_rows(spec))
    expected: dict[str, set[int]] = {}
    for _, name, numbers in spec:
        expected.setdefault(name, set()).update(numbers)
    got = {f.subject.split('"')[1]: f.numbers.tolist() for f in files}
    assert got == {name: sorted(nums) for name, nums in expected.items()}
    parsed = Nzb.from_str(write_nzb(files).decode())
    assert sum(len(f.segments) for f in parsed.files) == sum(len(v) for v in expected.values())


@pytest.mark.skipif(not SHARED_NZB.is_dir(), reason="../shared/data/nzb is absent")
def test_real_nzbs_round_trip_through_our_writer():
    """Real NZBs (Nyuu, SABnzbd, NZBGet samples) re-written by us keep every segment."""
    for name in ("nyuu_posted.nzb", "plain.nzb", "sabnzbd.nzb", "Ubuntu-16.04.1-Server-i386.nzb"):
        original = Nzb.from_file(SHARED_NZB / name)
        files = [
            NzbFile(
                subject=f.subject,
                poster=f.poster,
                date=int(f.posted_at.timestamp()),
                groups=list(f.groups),
                numbers=np.array([s.number for s in f.segments]),
                sizes=np.array([s.size for s in f.segments]),
                message_ids=[s.message_id for s in f.segments],
            )
            for f in original.files
        ]
        ours = write_nzb(files, [("title", name)])
        _valid(ours)
        again = Nzb.from_str(ours.decode())
        assert again.size == original.size
        assert [f.subject for f in again.files] == [f.subject for f in original.files]


@pytest.mark.skipif(not SHARED_NZB.is_dir(), reason="../shared/data/nzb is absent")
def test_our_dtd_copy_is_the_spec():
    assert DTD_PATH.read_bytes() == (SHARED_NZB / "nzb-1.1.dtd").read_bytes()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 9),
            st.sampled_from(["a.rar", "b.rar", "c.mkv", "d&<x>.nfo"]),
            st.lists(st.integers(1, 40), min_size=0, max_size=12),
            st.sampled_from(["", "<", ">", "&", '"', "\x01", "\ufffe", "ü"]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_arrow_message_ids_write_what_python_lists_write(spec):
    """The writer's column-wise path (one Arrow array, escaped only when its bytes need
    it) gives the same document as plain lists through the per-value `xml_text` path."""
    rows = _rows([(w, name, numbers) for w, name, numbers, _ in spec])
    marks = [mark for *_, numbers, mark in spec for _ in numbers]
    plain = pc.list_flatten(rows.column("seg_ids")).to_pylist()
    ids = pa.array([f"<{m}{mark}@x>" for m, mark in zip(plain, marks, strict=True)])
    counts = pc.list_value_length(rows.column("seg_ids")).to_numpy(zero_copy_only=False)
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    rows = rows.set_column(
        rows.schema.get_field_index("seg_ids"), "seg_ids", pa.ListArray.from_arrays(offsets, ids)
    )
    files = merge_file_rows(rows)
    as_lists = [
        NzbFile(
            f.subject,
            f.poster,
            f.date,
            f.groups,
            f.numbers,
            f.sizes,
            list(f.message_ids.to_pylist()),
        )
        for f in files
    ]
    arrow_doc = write_nzb(files, [("title", "t")])
    assert arrow_doc == write_nzb(as_lists, [("title", "t")])
    _valid(arrow_doc)
