"""`generate --tool-obfuscation`: obfuscated uploads as obfuscating posting tools write
them (pipelines/generate/obfuscation.py), and the article pass naming them per family.

- Every family shows in a small corpus, with the tools' header shapes (Postie's ids and
  From, ngPost's, Nyuu's) and bodies whose yEnc names are what the family says.
- A corpus without the option has neither the truth column nor the summary's counts.
- Over a few seeds (a few seconds each): generate -> replay -> probe --bodies -> score, per family:
  >= 97 % of the nameable uploads the window closed on named right, none wrong, every
  archive's password right.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.articles.store import open_bodies
from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.generate.obfuscation import FAMILIES
from pipelines.naming.random_names import random_token
from pipelines.naming.text import stem
from pipelines.probe.fetch import StoreSource
from pipelines.probe.run import probe_catalog
from pipelines.score.catalog import load_catalog
from pipelines.score.naming import score_naming_by_family
from tests.corpora import replayed

SMALL = {"groups": 2, "articles": 6_000, "range_size": 5_000, "chunk": 1_000}
_YBEGIN_NAME = re.compile(rb"^=ybegin [^\r\n]*name=([^\r\n]*)")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tools") / "o"
    generate_corpus(str(out), GenerateConfig(seed=4, tool_obfuscation=True, **SMALL))
    return out


def _yenc_name(body: bytes) -> str:
    found = _YBEGIN_NAME.match(body)
    assert found, body[:80]
    return found.group(1).decode()


def test_every_family_with_its_yenc_names(small: Path) -> None:
    truth = pq.read_table(small / "truth" / "uploads.parquet").to_pylist()
    tools = [u for u in truth if u["obfuscation"]]
    assert {u["obfuscation"] for u in tools} == set(FAMILIES)
    assert all(u["pending"] and u["kind"] == "obfuscated" for u in tools)
    store = open_bodies(str(small))
    assert store is not None
    for u in tools:
        first = u["files"][0]
        lone = len(u["files"]) == 1
        body = store.body(first["message_ids"][0])
        assert body is not None
        shown = _yenc_name(body)
        if u["obfuscation"] == "yenc_name":
            # the subject's name is random, the yEnc header's the real file
            assert lone and random_token(stem(first["name"])) and shown != first["name"]
            assert u["name_carrier"] == "yenc" and stem(shown) == u["inner_name"]
        elif u["obfuscation"] == "yenc_random":
            assert lone and random_token(stem(shown)) and u["inner_name"] is None
        elif u["obfuscation"] == "par2_only":
            assert u["name_carrier"] == "par2" and shown == first["name"]
        elif u["obfuscation"] == "ngpost_archive":
            assert re.fullmatch(r"[A-Za-z0-9]{22}\.part\d+\.rar|[A-Za-z0-9]{22}\.par2", shown)
            assert u["inner_name"] is None if u["passworded"] else u["name_carrier"] == "archive"
    postie = [u for u in tools if re.fullmatch(r"\w{14} <\w{14}@\w{5}\.\w{3}>", u["poster"])]
    assert postie, "no Postie From"
    ids = [m for u in postie for f in u["files"] for m in f["message_ids"]]
    assert all(re.fullmatch(r"[A-Za-z0-9]{32}@[A-Za-z0-9]{8}\.[A-Za-z0-9]{3}", m) for m in ids)
    ngpost = [m for u in tools if u["obfuscation"] == "ngpost_archive"
              for f in u["files"] for m in f["message_ids"]]  # fmt: skip
    assert all(m.endswith("@ngPost") for m in ngpost)


def test_without_the_option_nothing_changes_shape(tmp_path: Path) -> None:
    out = tmp_path / "o"
    summary = generate_corpus(str(out), GenerateConfig(seed=4, **SMALL), bodies=False)
    assert "obfuscation" not in pq.read_schema(out / "truth" / "uploads.parquet").names
    assert "obfuscation_per_family" not in summary.to_json()
    assert "tool_obfuscation" not in (out / "generate.json").read_text()


@pytest.mark.parametrize("seed", [31, 32])
def test_every_family_named_right_with_its_password(tmp_path: Path, seed: int) -> None:
    config = GenerateConfig(groups=2, articles=30_000, seed=seed, range_size=10_000,
                            chunk=2_500, tool_obfuscation=True)  # fmt: skip
    gen, _ = replayed(tmp_path / "gen", tmp_path / "cat", config)
    store = open_bodies(str(gen.out))
    assert store is not None
    probe_catalog(str(tmp_path / "cat"), StoreSource(store))
    truth = pq.read_table(gen.out / "truth" / "uploads.parquet").to_pylist()
    families = score_naming_by_family(truth, load_catalog(tmp_path / "cat"))
    assert set(FAMILIES) <= set(families)
    for name, s in families.items():
        assert s.named_wrong == 0, (name, s.wrong)
        assert s.share >= 0.97, (name, s.format())
        assert s.password_wrong == 0 and s.password_unknown == 0, (name, s.format())
    assert families["yenc_name"].named_right > 0
    assert sum(s.password_right for s in families.values()) > 0
