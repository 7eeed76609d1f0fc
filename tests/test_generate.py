"""The corpus generator: truth matches corpus, the corpus is valid, it is deterministic."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.corpus.check import check_corpus
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig, generate_corpus

FILE_COUNTER = re.compile(rb"[\[(]\d+/\d+[\])].*\(\d+/\d+\)|File \d+ of \d+")
CONFIG = GenerateConfig(groups=3, articles=12_000, seed=11, range_size=10_000, chunk=2_500)


@dataclass(frozen=True)
class Line:
    group: str
    number: int
    fields: list[bytes]

    @property
    def message_id(self) -> str:
        return self.fields[4].decode()[1:-1]

    @property
    def xref(self) -> dict[str, int]:
        parts = self.fields[8].decode().split()
        assert parts[0] == "Xref:"
        return {g: int(n) for g, n in (p.rsplit(":", 1) for p in parts[2:])}


def read_lines(root: Path) -> list[Line]:
    reader = CorpusReader(str(root / "corpus"))
    out = []
    for group in reader.groups():
        for info in reader.ranges(group):
            for chunk in reader.read_range(info):
                for raw in chunk.data.split(b"\r\n")[:-1]:
                    fields = raw.split(b"\t")
                    out.append(Line(group, int(fields[0]), fields))
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "out"
    generate_corpus(str(out), CONFIG)
    return out


@pytest.fixture(scope="module")
def lines(generated: Path) -> list[Line]:
    return read_lines(generated)


@pytest.fixture(scope="module")
def uploads(generated: Path) -> list[dict]:
    return pq.read_table(generated / "truth" / "uploads.parquet").to_pylist()


@pytest.fixture(scope="module")
def noise(generated: Path) -> list[dict]:
    return pq.read_table(generated / "truth" / "noise.parquet").to_pylist()


@pytest.fixture(scope="module")
def manifest(generated: Path) -> dict:
    return json.loads((generated / "generate.json").read_text())


def test_corpus_passes_check(generated: Path, manifest: dict) -> None:
    summary = check_corpus(str(generated / "corpus"))
    assert summary.ranges == summary.complete > 0
    assert summary.bad_lines == 0
    assert summary.missing == summary.truncated == 0
    assert summary.lines == manifest["counts"]["lines"]


def test_ranges_are_aligned_and_cover_every_article(generated: Path, lines: list[Line]) -> None:
    reader = CorpusReader(str(generated / "corpus"))
    by_group = defaultdict(list)
    for line in lines:
        by_group[line.group].append(line.number)
    assert len(by_group) == CONFIG.groups
    for group, numbers in by_group.items():
        infos = reader.ranges(group)
        assert all(i.complete for i in infos)
        assert all(i.ref.first % CONFIG.range_size == 0 for i in infos)
        assert infos[0].ref.first <= min(numbers) and max(numbers) <= infos[-1].ref.last
        assert min(numbers) % CONFIG.range_size != 0  # the base is not range-aligned
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
        steps = Counter(b - a for a, b in itertools.pairwise(numbers))
        assert sum(v for k, v in steps.items() if k > 1) > 0  # expired articles leave gaps


def test_truth_accounts_for_every_article_once(
    lines: list[Line], uploads: list[dict], noise: list[dict]
) -> None:
    in_corpus = Counter((line.message_id, line.group) for line in lines)
    assert max(in_corpus.values()) == 1
    in_truth: Counter[tuple[str, str]] = Counter()
    for u in uploads:
        for f in u["files"]:
            for mid in f["message_ids"]:
                for g in u["groups"]:
                    in_truth[(mid, g)] += 1
    for row in noise:
        in_truth[(row["message_id"], row["group"])] += 1
    assert max(in_truth.values()) == 1
    assert set(in_truth) == set(in_corpus)


def test_xref_names_the_upload_groups_with_their_numbers(
    lines: list[Line], uploads: list[dict], manifest: dict
) -> None:
    number = {(line.message_id, line.group): line.number for line in lines}
    groups_of = {}
    for u in uploads:
        for f in u["files"]:
            for mid in f["message_ids"]:
                groups_of[mid] = u["groups"]
    for line in lines:
        xref = line.xref
        assert xref[line.group] == line.number
        expected = groups_of.get(line.message_id, [line.group])
        assert list(xref) == expected  # in the Newsgroups order
        for g, n in xref.items():
            assert number[(line.message_id, g)] == n
    priority = {g["name"]: g["priority"] for g in manifest["groups"]}
    crossed = [u for u in uploads if len(u["groups"]) > 1]
    assert crossed
    for u in uploads:
        assert u["owner_group"] == min(u["groups"], key=priority.__getitem__)
    assert any(u["groups"][0] != u["owner_group"] for u in crossed)


def test_files_and_parts_are_consistent(lines: list[Line], uploads: list[dict]) -> None:
    by_id = {line.message_id: line for line in lines}
    for u in uploads:
        assert u["files"], u["name"]
        assert u["posted_first"] <= u["posted_last"]
        complete = all(len(f["message_ids"]) == f["part_total"] for f in u["files"])
        if u["file_total"] is not None:  # an `[00/N]` .nzb is not one of the N
            counted = [f for f in u["files"] if not f["name"].endswith(".nzb")]
            complete = complete and len(counted) == u["file_total"]
        assert u["complete"] == complete, u["name"]
        for f in u["files"]:
            assert 1 <= len(f["message_ids"]) <= f["part_total"]
            for mid in f["message_ids"]:
                nbytes, nlines = int(by_id[mid].fields[6]), int(by_id[mid].fields[7])
                # yEnc: ~130 bytes a body line, a full segment is a ~700 kB article
                assert 120 < (nbytes - 300) / nlines < 150 or nbytes < 20_000
                assert nbytes < 850_000


def test_full_segments_are_realistic_sizes(lines: list[Line], uploads: list[dict]) -> None:
    by_id = {line.message_id: line for line in lines}
    sizes = [
        int(by_id[mid].fields[6])
        for u in uploads
        for f in u["files"]
        for mid in f["message_ids"][:-1]  # every part but the file's last is full
    ]
    assert sizes and all(716_800 <= s <= 820_000 for s in sizes)


def test_every_kind_and_noise_kind_is_present(uploads: list[dict], noise: list[dict]) -> None:
    kinds = Counter(u["kind"] for u in uploads)
    for kind in (
        "rar_parts",
        "rar_old",
        "video",
        "music",
        "ebook",
        "sevenzip",
        "software",
        "obfuscated",
        "single",
        "album",
        "batch",
    ):
        assert kinds[kind] >= 1, kind
    assert set(Counter(r["kind"] for r in noise)) == {"random_subject", "private_hash", "text_post"}


def test_noise_shares_follow_real_corpora(lines: list[Line], noise: list[dict]) -> None:
    kinds = Counter(r["kind"] for r in noise)
    assert 0.18 < kinds["random_subject"] / len(lines) < 0.32
    by_id = {line.message_id: line for line in lines}
    for row in noise:
        subject = by_id[row["message_id"]].fields[1]
        if row["kind"] == "random_subject":
            assert re.fullmatch(rb"[0-9a-f]{32}", subject)
        elif row["kind"] == "private_hash":
            assert subject.startswith(b"[PRiVATE]") and b"(" not in subject
        else:
            assert b"yEnc" not in subject and int(by_id[row["message_id"]].fields[6]) < 20_000


def test_file_kinds_and_names(uploads: list[dict]) -> None:
    names = [f["name"] for u in uploads for f in u["files"]]
    patterns = [
        r"\.part0*1\.rar$",
        r"\.r00$",
        r"\.vol\d+\+\d+\.par2$",
        r"\.nfo$",
        r"\.sfv$",
        r"\.7z\.001$",
        r"\.(mkv|mp4|avi)$",
        r"\.(mp3|flac)$",
        r"\.epub$",
        r"^(cover|folder|front)\.jpg$",
        r"\.nzb$",
        r"\.S\d\dE\d\d\..*\.(mkv|mp4|avi)$",
    ]
    for pattern in patterns:
        assert any(re.search(pattern, n) for n in names), pattern
    release_names = [u["name"] for u in uploads if u["readable"]]
    assert any(re.search(r"\.S\d\dE\d\d\.", n) for n in release_names)
    assert any(re.search(r"\.(19|20)\d\d\..*(1080p|720p|2160p|480p)", n) for n in release_names)
    assert any(re.fullmatch(r"[A-Za-z_]+-[A-Za-z_]+-\w+-\d{4}-\w+", n) for n in release_names)


def test_obfuscated_albums_and_batches(uploads: list[dict], lines: list[Line]) -> None:
    by_id = {line.message_id: line for line in lines}
    obfuscated = [u for u in uploads if u["kind"] == "obfuscated"]
    assert all(u["pending"] and not u["readable"] for u in obfuscated)
    assert all(not u["pending"] and u["readable"] for u in uploads if u["kind"] != "obfuscated")
    for u in obfuscated:
        assert re.fullmatch(r"[0-9A-Za-z]{20,32}", u["name"])
        for f in u["files"]:  # random names, but the counters stay
            assert FILE_COUNTER.search(by_id[f["message_ids"][0]].fields[1]), f["name"]
    albums = [u for u in uploads if u["kind"] == "album"]
    for u in albums:
        assert "#" in u["name"] and u["file_total"] is None and len(u["files"]) >= 5
        template = re.escape(u["name"]).replace("\\#", "#").replace("#", r"\d")
        assert all(re.fullmatch(template, f["name"]) for f in u["files"])
        assert all(f["part_total"] == 1 for f in u["files"])
        assert len({by_id[f["message_ids"][0]].fields[2] for f in u["files"]}) == 1
        assert u["posted_last"] - u["posted_first"] < 5 * 3600
    batches = [u for u in uploads if u["kind"] == "batch"]
    assert len(batches) > 1 and len({u["poster"] for u in batches}) == 1
    totals = set()
    for u in batches:
        assert u["file_total"] is None
        subject = by_id[u["files"][0]["message_ids"][0]].fields[1].decode()
        m = re.match(r'\[(\d+)/(\d+)\] "(.+)" yEnc \(1/\d+\)$', subject)
        assert m and m.group(3) == u["files"][0]["name"]
        totals.add(m.group(2))
    assert len(totals) == 1


def test_incomplete_uploads_and_reposts(uploads: list[dict]) -> None:
    short_file = [
        u for u in uploads if any(len(f["message_ids"]) < f["part_total"] for f in u["files"])
    ]
    missing_file = [
        u for u in uploads if u["file_total"] is not None and len(u["files"]) < u["file_total"]
    ]
    assert short_file and missing_file
    assert not any(u["complete"] for u in short_file + missing_file)
    by_id = {u["upload_id"]: u for u in uploads}
    reposts = [u for u in uploads if u["repost_of"] is not None]
    assert reposts
    for u in reposts:
        original = by_id[u["repost_of"]]
        assert u["name"] == original["name"]
        assert [f["name"] for f in u["files"]] == [f["name"] for f in original["files"]]
        assert u["posted_first"] >= original["posted_last"] + 3 * 3600


def test_uploads_run_for_hours_and_cross_ranges(lines: list[Line], uploads: list[dict]) -> None:
    where = {(line.message_id, line.group): line.number // CONFIG.range_size for line in lines}
    crossing = 0
    for u in uploads:
        group = u["owner_group"]
        ranges = {where[(mid, group)] for f in u["files"] for mid in f["message_ids"]}
        crossing += len(ranges) > 1
    assert crossing >= 1
    assert any(u["posted_last"] - u["posted_first"] > 2 * 3600 for u in uploads)
    span = max(u["posted_last"] for u in uploads) - min(u["posted_first"] for u in uploads)
    assert span > 2 * 86400  # days: a 24 h window finishes releases inside the run


def test_one_poster_never_reuses_a_name_close_in_time(uploads: list[dict]) -> None:
    by_poster = defaultdict(list)
    for u in uploads:
        by_poster[(u["poster"], u["name"])].append(u)
    for same in by_poster.values():
        same.sort(key=lambda u: u["posted_first"])
        for a, b in itertools.pairwise(same):
            assert b["posted_first"] - a["posted_last"] > 3 * 3600


def test_uploads_interleave(lines: list[Line], uploads: list[dict]) -> None:
    """Several uploads run at once: their articles alternate in a group's numbering."""
    owner = {m: u["upload_id"] for u in uploads for f in u["files"] for m in f["message_ids"]}
    group = lines[0].group
    ups = [owner.get(line.message_id, -1) for line in lines if line.group == group]
    windows = [len({x for x in ups[i : i + 1000] if x >= 0}) for i in range(0, len(ups), 1000)]
    assert sum(windows) / len(windows) >= 3
    switches = sum(1 for a, b in itertools.pairwise(ups) if a != b and a >= 0 and b >= 0)
    assert switches > len(uploads)  # far more alternations than one run per upload
