"""The generated headers carry what real binary groups carry: subject styles, encodings,
Date formats and broken clocks, the posting tools' Message-ID and From shapes."""

from __future__ import annotations

import datetime as dt
import email.utils
import re
from collections import Counter, defaultdict
from email.header import decode_header, make_header
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig, generate_corpus

CONFIG = GenerateConfig(groups=2, articles=15_000, seed=5, range_size=20_000, chunk=5_000)
# the shapes of message_id_and_from_shapes.md, one a posting tool
ID_SHAPES = {
    "nyuu": r"[A-Za-z]{24}-\d{13}@nyuu",
    "ngpost": r"[0-9a-f]{32}@ngPost",
    "powerpost": r"part\d+of\d+\.[A-Za-z0-9$&-]{20}@(camelsystem-powerpost|powerpost2000AA)\.local",
    "jbinup": r"[A-Za-z0-9]{20}(_\d+o\d+)?@JBinUp\.local",
    "yencbin": r"Part\d+of\d+\.[0-9A-F]{32}@\d{10}\.local",
    "newsup": r"\d{16}\.[0-9a-z]{8}@[0-9a-z]+\.newsup",
    "newsmangler": r"\d{10}\.\d+\.\d+@(news\.astraweb\.com|reader\.easyusenet\.nl"
    r"|news\.newshosting\.com)",
    "gopoststuff": r"\d{10}\.\d+\$gps@gpoststuff",
    "server": r"([0-9a-f]{8}\$0\$\d{5}\$[0-9a-f]{7}\$[0-9a-f]{8}@[a-z.]+"
    r"|[A-Za-z0-9]{32}@giganews\.com)",
}
STEM = re.compile(
    r"(\.part\d+\.rar|\.rar|\.[r-z]\d\d|\.vol\d+\+\d+\.par2|\.par2|\.7z\.\d{3}|\.[A-Za-z0-9]{2,4})$"
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[bytes]], list[dict]]:
    out: Path = tmp_path_factory.mktemp("gen") / "out"
    generate_corpus(str(out), CONFIG)
    reader = CorpusReader(str(out / "corpus"))
    by_id: dict[str, list[bytes]] = {}
    for group in reader.groups():
        for info in reader.ranges(group):
            for chunk in reader.read_range(info):
                for raw in chunk.data.split(b"\r\n")[:-1]:
                    fields = raw.split(b"\t")
                    by_id[fields[4][1:-1].decode()] = fields
    uploads = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    return by_id, uploads


def decoded(subject: bytes) -> str:
    """A subject as an indexer should read it: RFC 2047 words decoded, else UTF-8 or Latin-1."""
    try:
        text = subject.decode()
    except UnicodeDecodeError:
        return subject.decode("latin-1")
    return str(make_header(decode_header(text))) if "=?" in text else text


def first_subjects(by_id: dict[str, list[bytes]], upload: dict) -> list[bytes]:
    return [by_id[f["message_ids"][0]][1] for f in upload["files"]]


def test_files_share_a_name_or_stem(corpus: tuple) -> None:
    """What lets a header pass group files into releases is there for every upload."""
    by_id, uploads = corpus
    for u in uploads:
        if u["kind"] in ("album", "batch"):
            continue
        named = all(u["name"] in decoded(s) for s in first_subjects(by_id, u))
        stems = {STEM.sub("", f["name"]) for f in u["files"]}
        assert named or stems == {u["name"]}, (u["name"], u["style"])


def test_subject_styles_vary(corpus: tuple) -> None:
    by_id, uploads = corpus
    subjects = [decoded(s) for u in uploads for s in first_subjects(by_id, u)]
    for pattern in (
        r"\[\d+/\d+\]",
        r"\(\d+/\d+\) \"",
        r"File \d+ of \d+:",
        r"yEnc \(\d+/\d+\)",
        r"\" \(\d+/\d+\)$",  # no word yEnc
        r"\d+[.,]\d\d [MG]B",
        r" - [^\"]+\.\w{2,4} yEnc",  # an unquoted file name
        r"\] - \"[^\"]+\" - [^\[]+ yEnc",  # the release name after the counter
        r"[\[(]0+/\d+[\])] - \"[^\"]+\.nzb\"",  # the set's .nzb as file 0
    ):
        assert any(re.search(pattern, s) for s in subjects), pattern
    assert len({u["style"] for u in uploads}) >= 10


def test_segments_are_shuffled_within_an_upload(corpus: tuple) -> None:
    by_id, uploads = corpus
    shuffled = 0
    for u in uploads:
        for f in u["files"]:
            numbers = [int(by_id[m][0]) for m in f["message_ids"]]  # in part order
            shuffled += numbers != sorted(numbers)
    assert shuffled > 10


def test_rfc2047_and_latin1_subjects(corpus: tuple) -> None:
    by_id, uploads = corpus
    encodings = defaultdict(list)
    for u in uploads:
        encodings[u["encoding"]].append(u)
    for enc, marker in (("rfc2047_b", b"=?UTF-8?B?"), ("rfc2047_q", b"=?UTF-8?Q?")):
        assert encodings[enc], enc
        for u in encodings[enc]:
            for subject in first_subjects(by_id, u):
                assert marker in subject and u["name"] in decoded(subject)
    assert encodings["rfc2047_hidden"]
    for u in encodings["rfc2047_hidden"]:
        for f in u["files"]:
            raw = by_id[f["message_ids"][0]][1]
            assert raw.startswith(b"=?UTF-8?B?") and b"(" not in raw
            assert re.search(r"\(1/\d+\)", decoded(raw))  # the counter, once decoded
    assert encodings["latin1"]
    for u in encodings["latin1"]:
        for subject in first_subjects(by_id, u):
            with pytest.raises(UnicodeDecodeError):
                subject.decode()
            assert u["name"] in subject.decode("latin-1")
    foreign = [u["name"] for u in uploads if re.search(r"[\u3040-\u9fff\u0400-\u04ff]", u["name"])]
    assert foreign
    assert encodings["utf8"]  # raw UTF-8 in the subject, no encoded words
    for u in encodings["utf8"]:
        for subject in first_subjects(by_id, u):
            assert b"=?" not in subject and u["name"] in subject.decode()
            assert not subject.isascii()


def test_date_formats_and_broken_clocks(corpus: tuple) -> None:
    by_id, uploads = corpus
    dates = [f[3].decode() for f in by_id.values()]
    years = Counter(email.utils.parsedate_to_datetime(d).year for d in dates)
    assert years[1970] >= 1 and years[2099] >= 1
    assert sum(n for y, n in years.items() if 2000 < y < 2030) > 0.99 * len(dates)
    for zone in (" GMT", " +0000", " -0500", " UT"):
        assert any(d.endswith(zone) for d in dates), zone
    assert any(not d[0].isalpha() for d in dates)  # no weekday
    skews = []
    for u in uploads:
        stamps = [
            email.utils.parsedate_to_datetime(by_id[m][3].decode()).timestamp()
            for f in u["files"]
            for m in f["message_ids"]
        ]
        plausible = [s for s in stamps if abs(s - u["posted_first"]) < 20 * 3600]
        skews.append(min(plausible) - u["posted_first"])
    assert sum(s == 0 for s in skews) > 0.6 * len(skews)
    assert any(abs(s) >= 3600 for s in skews)  # a clock hours off


def test_posting_tool_shapes(corpus: tuple) -> None:
    by_id, uploads = corpus
    seen = Counter()
    for u in uploads:
        ids = [m for f in u["files"] for m in f["message_ids"]]
        tools = [t for t, shape in ID_SHAPES.items() if all(re.fullmatch(shape, m) for m in ids)]
        assert tools, ids[:3]  # one upload, one tool's shape
        seen[tools[0]] += 1
    assert set(seen) == set(ID_SHAPES)
    senders = {by_id[u["files"][0]["message_ids"][0]][2].decode() for u in uploads}
    assert "yEncBin@Poster.com (yEncBin)" in senders or not seen["yencbin"]
    assert any(re.fullmatch(r"Yenc@yenc-post\.org \(Yenc-PP-.+\)", s) for s in senders)
    assert any(
        re.fullmatch(r"[A-Za-z0-9]{6,12} <[A-Za-z0-9]+@[A-Za-z0-9]+\.[a-z]{2}>", s) for s in senders
    )


def test_posting_times_lie_in_the_configured_era(corpus: tuple) -> None:
    _, uploads = corpus
    first = min(u["posted_first"] for u in uploads)
    assert dt.datetime.fromtimestamp(first, dt.UTC).year >= 2016
