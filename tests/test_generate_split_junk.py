"""`generate --split-and-junk`: split uploads the header pass cannot join, each with a par2
set that describes its files; fakes, repeated families and taken-down uploads; the truth's
columns say what the corpus and its bodies hold."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import sabctools

from cli.main import main as cli_main
from pipelines.articles.store import BodyStore, open_bodies
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.generate.contents.names import seven_zip_volume, suffix_of
from pipelines.generate.corpus import build
from pipelines.generate.truth import JUNK_FIELDS
from pipelines.nntp.wire import stuff
from pipelines.probe.par2 import Par2Set, read_par2
from pipelines.subjects.rules import parse

CONFIG = GenerateConfig(groups=2, articles=20_000, seed=3, mix="real", split_and_junk=True)
HASH_16K = 16 * 1024


class Corpus:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.uploads = pq.read_table(root / "truth" / "uploads.parquet").to_pylist()
        self.gone = pq.read_table(root / "truth" / "gone.parquet").column(0).to_pylist()
        store = open_bodies(str(root))
        assert store is not None
        self.bodies: BodyStore = store
        reader = CorpusReader(str(root / "corpus"))
        self.lines: dict[str, list[bytes]] = {}
        for group in reader.groups():
            for info in reader.ranges(group):
                for chunk in reader.read_range(info):
                    for raw in chunk.data.split(b"\r\n")[:-1]:
                        fields = raw.split(b"\t")
                        self.lines[fields[4][1:-1].decode()] = fields

    def of(self, **where: object) -> list[dict]:
        return [u for u in self.uploads if all(u[k] == v for k, v in where.items())]

    def subject(self, message_id: str) -> bytes:
        return self.lines[message_id][1]

    def decoded(self, message_id: str) -> bytes:
        """A stored body's bytes, decoded by sabctools as they come off the wire."""
        body = self.bodies.body(message_id)
        assert body is not None, message_id
        wire = b"222 0 <x>\r\n" + stuff(body) + b".\r\n"
        decoder = sabctools.Decoder(len(wire) + 1024)
        decoder.expect(None)
        view = memoryview(decoder)
        view[: len(wire)] = wire
        view.release()
        decoder.process(len(wire))
        (response,) = list(decoder)
        return bytes(response.data)

    def par2(self, upload: dict) -> Par2Set:
        (index,) = [f for f in upload["files"] if is_index(f["name"])]
        return read_par2(self.decoded(index["message_ids"][0]))


def is_index(name: str) -> bool:
    low = name.lower()
    return low.endswith(".par2") and ".vol" not in low


def identity(subject: bytes) -> tuple[bytes, int, int]:
    """What the header pass joins a file by (its subject's identity, else its stem) and
    the file counter's index and total (-1: none)."""
    p, ident = parse(subject)
    return (ident if p.identity_key else b"stem:%d" % p.stem_key), p.file_index, p.file_total


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    out = tmp_path_factory.mktemp("junk")
    generate_corpus(str(out), CONFIG)
    return Corpus(out)


def test_off_by_default_adds_nothing(tmp_path: Path) -> None:
    config = GenerateConfig(groups=1, articles=2_000, seed=3, mix="real")
    assert "split_and_junk" not in config.to_json()
    summary = generate_corpus(str(tmp_path), config, bodies=False)
    assert "junk_per_kind" not in summary.to_json()
    names = pq.read_schema(tmp_path / "truth" / "uploads.parquet").names
    assert not {f.name for f in JUNK_FIELDS} & set(names)
    assert not (tmp_path / "truth" / "gone.parquet").exists()


def test_every_kind_is_present_in_a_small_share(corpus: Corpus) -> None:
    n = len(corpus.uploads)
    for column, value in (
        ("split_by", "per_file"),
        ("split_by", "tracks"),
        ("split_by", "sidecar"),
        ("fake", "exe"),
        ("fake", "archive"),
        ("fake", "media"),
        ("taken_down", "all"),
        ("taken_down", "some"),
    ):
        count = len(corpus.of(**{column: value}))
        assert 1 <= count <= max(3, 0.06 * n), (column, value, count)
    families: dict[int, list[dict]] = defaultdict(list)
    for u in corpus.uploads:
        if u["repeat_of"] is not None:
            families[u["repeat_of"]].append(u)
    assert families
    for first, members in families.items():
        assert 21 <= len(members) <= 30
        assert min(u["upload_id"] for u in members) == first
    assert corpus.of(expected_verdict="locked") and corpus.of(expected_verdict="unusable")
    # most uploads are ordinary ones
    assert len(corpus.of(expected_verdict=None)) > n / 2


def test_per_file_files_are_each_a_release_of_their_own(corpus: Corpus) -> None:
    for u in corpus.of(split_by="per_file"):
        assert u["kind"] == "obfuscated" and u["pending"] and u["file_total"] is None
        subjects = [corpus.subject(f["message_ids"][0]) for f in u["files"]]
        keys = [identity(s) for s in subjects]
        assert all(index == total == -1 for _, index, total in keys), subjects  # no counter
        assert len({k for k, _, _ in keys}) == len(u["files"]), subjects
        stems = [f["name"][: -len(suffix_of(f["name"]))] for f in u["files"]]
        for stem, subject in zip(stems, subjects, strict=True):  # no token shared
            assert sum(stem.encode() in s for s in subjects) == 1, subject


def test_per_file_par2_describes_each_hidden_file_by_its_head(corpus: Corpus) -> None:
    checked = 0
    for u in corpus.of(split_by="per_file"):
        assert u["par2_describes"]
        par2 = corpus.par2(u)
        data = [f for f in u["files"] if not f["name"].lower().endswith(".par2")]
        listed = dict(zip(par2.names, zip(par2.sizes, par2.hashes, strict=True), strict=True))
        assert len(listed) == len(data)
        # the real names, hidden behind the random ones: the inner name and each suffix
        for f in data:
            real = f"{u['inner_name']}{suffix_of(f['name'])}"
            assert real in listed and real != f["name"]
            size, md5_16k = listed[real]
            first = corpus.bodies.row(f["message_ids"][0])
            assert first is not None, f["name"]  # each file a lone probe target
            assert first["file_size"] == size
            assert hashlib.md5(corpus.decoded(f["message_ids"][0])[:HASH_16K]).digest() == md5_16k
            checked += 1
    assert checked


def test_tracks_are_split_and_named_by_their_par2_set(corpus: Corpus) -> None:
    for u in corpus.of(split_by="tracks"):
        tracks = [f for f in u["files"] if not f["name"].endswith(".par2")]
        keys = [identity(corpus.subject(f["message_ids"][0])) for f in tracks]
        assert len({k for k, _, _ in keys}) == len(tracks)
        assert all(index == -1 for _, index, _ in keys)
        assert u["par2_describes"]
        par2 = corpus.par2(u)
        assert sorted(par2.names) == sorted(f["name"] for f in tracks)
        for f in tracks:
            md5 = hashlib.md5(corpus.decoded(f["message_ids"][0])[:HASH_16K]).digest()
            assert par2.hashes[par2.names.index(f["name"])] == md5
        lines = [corpus.lines[m] for f in u["files"] for m in f["message_ids"]]
        assert len({line[2] for line in lines}) == 1  # one poster
        assert u["posted_last"] - u["posted_first"] <= 2 * 3600 + 60


def test_sidecars_are_posted_apart_under_another_total(corpus: Corpus) -> None:
    for u in corpus.of(split_by="sidecar"):
        side = [f for f in u["files"] if f["name"].lower().endswith((".nfo", ".sfv", ".nzb"))]
        main = [f for f in u["files"] if f not in side]
        assert side and main
        side_totals = {identity(corpus.subject(f["message_ids"][0]))[2] for f in side}
        main_totals = {identity(corpus.subject(f["message_ids"][0]))[2] for f in main}
        assert len(side_totals) == len(main_totals) == 1 and side_totals != main_totals
        assert min(side_totals) >= 2  # a counted file: it joins no release of another total
        lines = {f["name"]: [corpus.lines[m] for m in f["message_ids"]] for f in u["files"]}
        assert len({line[2] for rows in lines.values() for line in rows}) == 1  # one From
        par2 = corpus.par2(u)
        assert sorted(par2.names) == sorted(
            f["name"] for f in main if not f["name"].endswith(".par2")
        )


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_sidecars_come_within_ten_minutes(seed: int) -> None:
    config = GenerateConfig(groups=2, articles=8_000, seed=seed, days=2.5, split_and_junk=True)
    planned, _, _ = build(config)
    at = dict(zip(planned.segments.message_ids, planned.segments.times.tolist(), strict=True))
    sidecars = [u for u in planned.uploads if u.split_by == "sidecar"]
    assert sidecars
    for u in sidecars:
        spans = {}
        for f in u.files:
            ts = [at[m] for m in f.message_ids]
            spans[f.name] = (min(ts), max(ts))
        side = [s for n, s in spans.items() if n in u.apart]
        main = [s for n, s in spans.items() if n not in u.apart]
        first, last = min(a for a, _ in main), max(b for _, b in main)
        for a, b in side:
            assert (b <= first and first - b <= 600) or (a >= last and a - last <= 600)


def test_fakes_are_programs_under_media_names(corpus: Corpus) -> None:
    for u in corpus.of(fake="exe"):
        (exe,) = [f for f in u["files"] if f["name"].endswith(".exe")]
        assert corpus.decoded(exe["message_ids"][0]).startswith(b"MZ")
    for u in corpus.of(fake="media"):
        (media,) = [f for f in u["files"] if f["name"].endswith((".mkv", ".mp3"))]
        assert corpus.decoded(media["message_ids"][0]).startswith(b"MZ")
    for u in corpus.of(fake="archive"):
        (first,) = [f for f in u["files"] if f["name"].endswith(("part1.rar", "part01.rar",
                                                                  "part001.rar"))]  # fmt: skip
        head = corpus.decoded(first["message_ids"][0])
        assert f"{u['name']}.exe".encode() in head[:2048] and b"MZ" in head[:2048]
        assert not u["passworded"]
    for u in corpus.of(fake=None):
        assert u["expected_verdict"] != "fake"


def test_a_repeated_family_posts_one_file(corpus: Corpus) -> None:
    families: dict[int, list[dict]] = defaultdict(list)
    for u in corpus.uploads:
        if u["repeat_of"] is not None:
            families[u["repeat_of"]].append(u)
    for members in families.values():
        assert len({u["name"] for u in members}) == len(members)
        heads, listed = set(), set()
        for u in members:
            (media,) = [f for f in u["files"] if f["name"].endswith(".mkv")]
            if corpus.bodies.row(media["message_ids"][0]) is not None:
                heads.add(corpus.decoded(media["message_ids"][0])[:HASH_16K])
            par2 = corpus.par2(u)
            at = par2.names.index(media["name"])
            listed.add((par2.sizes[at], par2.hashes[at]))
        assert len(heads) == 1 and len(listed) == 1
        (md5,) = {hashlib.md5(h).digest() for h in heads}
        assert listed == {(next(iter(listed))[0], md5)}


def test_taken_down_articles_have_no_body(corpus: Corpus) -> None:
    gone = set(corpus.gone)
    assert gone and len(gone) == len(corpus.gone)
    expected: set[str] = set()
    for u in corpus.of(taken_down="all"):
        ids = {m for f in u["files"] for m in f["message_ids"]}
        assert ids <= gone
        expected |= ids
    for u in corpus.of(taken_down="some"):
        ids = [m for f in u["files"] for m in f["message_ids"]]
        lost = [m for m in ids if m in gone]
        assert 0 < len(lost) < len(ids)
        expected |= set(lost)
        for f in u["files"]:  # the probe targets stay: the first segments
            assert f["message_ids"][0] not in gone
    assert expected == gone
    assert not any(m in corpus.bodies for m in gone)
    assert all(u["taken_down"] is None for u in corpus.uploads if u["expected_verdict"] == "fake")


def test_expected_verdict_follows_the_rule_order(corpus: Corpus) -> None:
    vol = re.compile(r"\.vol\d+[+-]\d+\.par2$", re.IGNORECASE)
    for u in corpus.uploads:
        repairable = any(vol.search(f["name"]) for f in u["files"])
        if u["taken_down"] == "all" or (u["taken_down"] == "some" and not repairable):
            want = "dead"
        elif u["fake"]:
            want = "fake"
        elif u["repeat_of"] is not None:
            want = "repeated"
        elif u["passworded"]:
            want = "locked"
        elif u["kind"] == "obfuscated" and u["inner_name"] is None:
            want = "unusable"
        else:
            want = None
        assert u["expected_verdict"] == want, u["upload_id"]
    # a split upload's par2 set names it: never unusable
    assert all(u["expected_verdict"] != "unusable" for u in corpus.of(split_by="per_file"))


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    config = GenerateConfig(groups=2, articles=3_000, seed=9, mix="real", split_and_junk=True)
    generate_corpus(str(tmp_path / "a"), config)
    args = ["generate", str(tmp_path / "b"), "--groups", "2", "--articles", "3000", "--seed"]
    assert cli_main([*args, "9", "--mix", "real", "--split-and-junk", "--quiet"]) == 0
    files = sorted(
        p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file()
    )
    assert any(p.name == "gone.parquet" for p in files)
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


@pytest.mark.parametrize("seed", [3, 4])
def test_partly_taken_down_uploads_lose_their_last_article(seed: int) -> None:
    """A sweep that STATs a release's last article finds a partly taken-down upload
    broken: that article is gone (unless a probe reads it)."""
    config = GenerateConfig(groups=2, articles=8_000, seed=seed, split_and_junk=True)
    planned, _, _ = build(config)
    at = dict(zip(planned.segments.message_ids, planned.segments.times.tolist(), strict=True))
    some = [u for u in planned.uploads if u.taken_down == "some"]
    assert some
    for u in some:
        ids = [(m, f) for f in u.files for m in f.message_ids]
        last, file = max(ids, key=lambda mf: at[mf[0]])
        read = last == file.message_ids[0] or seven_zip_volume(file.name) is not None
        assert (last in u.gone) != read
