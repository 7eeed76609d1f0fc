"""A catalog indexed by a build from before the window's tables carries on.

tests/data/window_v1 holds what such a build (6cbf22c) left after 82 ranges of a
generated group: a version 1 window snapshot (albums open across it, uploads whose next
files come after it), the
corpus of the three ranges after it, and digests of the rows that build wrote for
them. This build loads the snapshot, indexes the three ranges, and must write the
same rows.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from kernels import frontier
from kernels.siblings import key_hash, sibling_keys
from pipelines.corpus.reader import CorpusReader
from pipelines.index.batch import SOURCE_SUBJECT
from pipelines.index.range_indexer import index_range
from pipelines.index.rules import Rules
from pipelines.index.snapshot import MAGIC, load_window
from pipelines.index.window import Window
from tests.reference.siblings import sibling_key as reference_sibling_key

FIXTURE = Path(__file__).parent / "data" / "window_v1"
GROUP = "alt.binaries.teevee"


def _digests(catalog: Path) -> dict[str, list]:
    out = {}
    for key in json.loads((FIXTURE / "expected.json").read_text()):
        table, name = key.split("/")
        t = pq.read_table(catalog / table / GROUP / name)
        # release names and categories are the naming rules' (they change on their own);
        # the window decides everything else
        naming = ("name", "category") if table in ("releases", "pending_releases") else ()
        t = t.drop_columns([c for c in ("rules_version", *naming) if c in t.column_names])
        out[key] = [t.num_rows, hashlib.sha256(repr(t.to_pylist()).encode()).hexdigest()]
    return out


def test_a_version_1_snapshot_is_carried_on_as_the_old_build_would(tmp_path, monkeypatch):
    # the old build read every line's date as one poster's: so must this one, to compare
    # (with the posters told apart the frontier and the effective dates differ on purpose,
    # kernels.frontier)
    one_poster = frontier.advance
    monkeypatch.setattr(
        frontier, "advance", lambda state, dates, ok, _poster=None: one_poster(state, dates, ok)
    )
    catalog = tmp_path / "catalog"
    shutil.copytree(FIXTURE / "catalog", catalog)
    old = (catalog / "_window" / GROUP / "6369150-6369299.snapshot").read_bytes()
    assert not old.startswith(MAGIC)  # a bare zstd frame: version 1
    window = load_window(str(catalog), GROUP, 6369150, 6369299)
    assert isinstance(window, Window)
    assert window.albums.open  # albums open across the snapshot: their members' copies too
    assert window.carried
    rules = Rules(groups=(GROUP,))
    reader = CorpusReader(str(FIXTURE / "corpus"))
    infos = reader.complete_ranges(GROUP)
    assert [i.ref.first for i in infos] == [6369300, 6369450, 6369600]
    for info in infos:
        result, _ = index_range(reader, info, str(catalog), rules, [GROUP], window)
        assert result.adds_up
        # the next range starts from the snapshot just written (version 2 now)
        path = catalog / "_window" / GROUP / f"{info.ref.first}-{info.ref.last}.snapshot"
        assert path.read_bytes().startswith(MAGIC + b"2\n")
        window = load_window(str(catalog), GROUP, info.ref.first, info.ref.last)
    assert _digests(catalog) == json.loads((FIXTURE / "expected.json").read_text())


def test_a_snapshot_of_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "_window" / GROUP / "1-2.snapshot"
    path.parent.mkdir(parents=True)
    path.write_bytes(MAGIC + b"3\n" + b"whatever")
    with pytest.raises(ValueError, match="version 3"):
        load_window(str(tmp_path), GROUP, 1, 2)


def test_version_1_sibling_keys_hash_as_the_kernel_does():
    """Version 1 kept sibling keys as (poster, total, prefix): turned into the kernel's
    hash, a file posted after the snapshot finds the same release."""
    subjects = [b"Some Upload Name - [03/12] - x.rar", b"Other.Name.2024 (1/4) yEnc (1/9)"]
    poster = np.array([7, 2**63 + 5], np.uint64)
    index = np.array([3, 1], np.int64)
    total = np.array([12, 4], np.int64)
    hashes, has, _ = sibling_keys(subjects, poster, index, total, np.ones(2, np.bool_))
    assert has.all()
    for i, subject in enumerate(subjects):
        key = reference_sibling_key(
            subject, int(index[i]), int(total[i]), int(poster[i]), SOURCE_SUBJECT
        )
        assert key is not None
        assert key_hash(*key) == hashes[i]
