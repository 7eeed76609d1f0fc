"""The real mix (`--mix real`): deterministic, every family present, truth with families
and expected names; the shapes backed by real subjects (when ../shared/data is here)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.generate.posters import NO_FILE_NAME
from pipelines.generate.shapes import BY_KIND, FAMILIES, GROUP_KINDS, SHAPES
from tests import shared_data
from tests.test_generate_determinism import files_of, lines_of

REAL = GenerateConfig(
    groups=3, articles=40_000, seed=5, range_size=60_000, chunk=20_000, mix="real"
)
needs_data = shared_data.needs_data()
DATA = shared_data.DATA


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("real") / "a"
    generate_corpus(str(out), REAL)
    return out


def test_same_arguments_same_bytes(real: Path, tmp_path: Path) -> None:
    generate_corpus(str(tmp_path / "b"), REAL)
    assert files_of(real) == files_of(tmp_path / "b")


def test_another_seed_another_corpus(real: Path, tmp_path: Path) -> None:
    other = GenerateConfig(**{**REAL.to_json(), "seed": 6})
    generate_corpus(str(tmp_path / "c"), other)
    a = pq.read_table(real / "truth" / "uploads.parquet").column("name").to_pylist()
    b = pq.read_table(tmp_path / "c" / "truth" / "uploads.parquet").column("name").to_pylist()
    assert a != b


def test_every_family_and_kind_of_group_on_a_modest_corpus(real: Path) -> None:
    truth = pq.read_table(real / "truth" / "uploads.parquet").to_pylist()
    families = Counter(u["family"] for u in truth)
    assert set(families) == set(FAMILIES), set(FAMILIES) - set(families)
    kinds = {u["group_kind"] for u in truth if u["family"] != "classic"}
    assert kinds == set(GROUP_KINDS)
    # today's shapes stay in the mix: its albums, batch runs and obfuscated sets too
    classic = {u["kind"] for u in truth if u["family"] == "classic"}
    assert {"album", "batch", "obfuscated", "rar_parts"} <= classic


def test_the_truth_records_family_and_expected_name(real: Path) -> None:
    truth = pq.read_table(real / "truth" / "uploads.parquet")
    assert {"family", "group_kind", "expected_name"} <= set(truth.column_names)
    shapes = {s.name: s for s in SHAPES}
    named = 0
    for u in truth.to_pylist():
        shape = shapes.get(u["style"]) if u["family"] != "classic" else None
        if shape is None:
            continue
        assert u["family"] == shape.family and u["group_kind"] == shape.group_kind
        if shape.style.has_name:
            named += 1
            assert u["expected_name"] == u["name"]
        expected = u["expected_name"] or ""
        # the uploader and site text is never part of the name a person expects
        for text in ("www.", "REQ:", "Attn:", "Re:", "postet by", "flood", ".Presents-"):
            assert text not in expected, (u["style"], expected)
    assert named > 50
    meta = json.loads((real / "generate.json").read_text())
    assert meta["config"]["mix"] == "real"


def test_the_classic_mix_keeps_its_truth_and_manifest(tmp_path: Path) -> None:
    cfg = GenerateConfig(groups=1, articles=2_000, seed=2)
    generate_corpus(str(tmp_path / "c"), cfg)
    columns = pq.read_schema(tmp_path / "c" / "truth" / "uploads.parquet").names
    assert "family" not in columns and "expected_name" not in columns
    meta = json.loads((tmp_path / "c" / "generate.json").read_text())
    assert "mix" not in meta["config"]


def test_mix_is_checked() -> None:
    with pytest.raises(ValueError, match="mix"):
        GenerateConfig(mix="fancy")


def test_shapes_are_well_formed() -> None:
    from pipelines.generate.real import FILE_SETS

    assert {s.family for s in SHAPES} == set(FAMILIES) - {"classic"}
    assert len({s.name for s in SHAPES}) == len(SHAPES)
    for shape in SHAPES:
        assert shape.group_kind in GROUP_KINDS and shape.files in FILE_SETS
        assert "{k}" in shape.style.template
        assert ("{file}" in shape.style.template) != (shape.name in NO_FILE_NAME), shape.name
        carries = "{name}" in shape.style.template or "{title}" in shape.style.template
        assert carries == shape.style.has_name, shape.name
        assert ("{i}" in shape.style.template) == shape.style.has_counter, shape.name
    assert all(BY_KIND[k] for k in GROUP_KINDS)


# A family's mark in a real subject: what the shapes were derived from.
REAL_MARKS = {
    "mismatched_counter": r"\(\d+/\d+\]|\[\d+/\d+\)|\]\"[^\"]+\"\[",
    "several_counters": r"[\[(]\d+/\d+[\])].*[\[(]\d+/\d+[\])]",
    "several_quoted": r"\"[^\"]+\".*\"[^\"]+\"",
    "site_prefix": r"^(Re:|REQ|Attn:|\(www\.|<www\.|\S+\.Presents-|.* post voor u op|Per REQ)",
    "site_suffix": r"postet|flood|www\.\S+ by \w+|SSL-News\.info<",
    "of_counter": r"\d+ of \d+",
    "collection": r"^\([^)]+\) \[\d+/\d+\] - \"",
    "unquoted_track": r"- \d\d [A-Z][^\"]*\.(mp3|flac) yEnc$|^\[\d+/\d+\] [^\"]+\.mobi$",
    # (album_sidecars shows in no one subject: its tracks' and its par2 set's together)
    "bare_counter": r"- \d+ of \d+ -|\[\d+ of \d+ - \d+ kb\]|^\d+/\d+  \S|[a-z] \d+/\d+\] - ",
    "no_name": r"^\(\?\?\?\?\)|- Description -|powered by|^\.\.:\[\w+\]:\.\.",
    "prefix_left": r"nEwZ\[NZB\]|\buppt\b|^\(www\.\S+\) \)",
}


@needs_data
def test_each_family_has_real_subjects() -> None:
    rows = (DATA / "subjects" / "collection_examples.tsv").read_text().splitlines()[1:]
    subjects = [r.split("\t", 1)[1] for r in rows if "\t" in r]
    assert len(subjects) > 700
    for family, mark in REAL_MARKS.items():
        found = [s for s in subjects if re.search(mark, s)]
        assert found, family


@needs_data
def test_the_generated_names_are_not_the_real_subjects(real: Path) -> None:
    """Fresh names from the word lists: no real subject's quoted file name is reused."""
    rows = (DATA / "subjects" / "collection_examples.tsv").read_text().splitlines()[1:]
    real_files = {m for r in rows for m in re.findall(r"\"([^\"]{12,})\"", r)}
    truth = pq.read_table(real / "truth" / "uploads.parquet").to_pylist()
    ours = {f["name"] for u in truth for f in u["files"]}
    assert not real_files & ours


def test_the_classic_mix_is_byte_for_byte_as_before(tmp_path: Path) -> None:
    """The digests of the classic generator before the real mix existed (main at d940bc0):
    the comparison corpus and the tests depend on these bytes. A deliberate change to the
    classic generator updates them."""
    import hashlib

    from pipelines.generate import generate_range_lines

    data, first, last = generate_range_lines(20_000, 1)
    assert (first, last) == (5_150_304, 5_174_905)
    assert hashlib.sha256(data).hexdigest() == (
        "93a033b58bdc7ab386d4cfe52eae89d7b30b9fc0ee1588558667f4284ff596d0"
    )
    out = tmp_path / "o"
    generate_corpus(
        str(out), GenerateConfig(groups=2, articles=3_000, seed=3, range_size=5_000, chunk=1_000)
    )
    # what does not depend on the deflate or Parquet library's version: lines, truth rows
    digest = hashlib.sha256()
    for group, lines in sorted(lines_of(out).items()):
        digest.update(group.encode() + lines)
    # the header-level truth: without the columns the bodies added (what probed articles
    # carry) and generate.json without where the bodies are
    added = {"inner_name", "passworded", "name_carrier"}
    for name in ("uploads", "noise"):
        rows = pq.read_table(out / "truth" / f"{name}.parquet").to_pylist()
        rows = [{k: v for k, v in row.items() if k not in added} for row in rows]
        digest.update(json.dumps(rows, sort_keys=True).encode())
    doc = json.loads((out / "generate.json").read_text())
    del doc["bodies"]
    digest.update((json.dumps(doc, indent=1, sort_keys=True) + "\n").encode())
    assert digest.hexdigest() == "059e0bb8ddf3357447a82832d711e6d6bcb1fce0d91efdf49d338a3e1e340e4e"
