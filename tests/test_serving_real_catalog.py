"""Serving a catalog the header pass built from a generated corpus (not the synthetic one)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from lxml import etree
from nzb import Nzb

from pipelines.generate import GenerateConfig
from pipelines.nzb.writer import DTD_PATH
from serving.app import create_app
from serving.index.searcher import SearchQuery
from serving.settings import Settings
from tests.catalogs import sign_in
from tests.corpora import replayed

pytestmark = pytest.mark.slow  # generates a corpus and runs the header pass first
DTD = etree.DTD(str(DTD_PATH))
NS = {"newznab": "http://www.newznab.com/DTD/2010/feeds/attributes/"}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("real")
    out, catalog = tmp / "gen", tmp / "catalog"
    cfg = GenerateConfig(groups=2, articles=8_000, seed=4, range_size=3_000, chunk=1_000)
    _, summary = replayed(out, catalog, cfg)
    assert summary.ranges_indexed >= 4  # the window is carried across ranges
    return out, catalog


@pytest.fixture(scope="module")
def client(built):
    settings = Settings(catalog=str(built[1]), api_keys=["k"], build_in_process=True)
    with TestClient(create_app(settings, background=False)) as c:
        yield sign_in(c, "k")


def test_index_and_views_agree_on_the_releases(client):
    catalog = client.app.state.catalog
    view = catalog.views.query("SELECT release_key, name FROM releases").to_pylist()
    assert view, "the header pass wrote no releases"
    assert catalog.snapshot.stats()["releases"] == len(view)
    rows = client.get("/api", params={"t": "search", "apikey": "k", "limit": 100}).content
    feed = etree.fromstring(rows)
    total = int(feed.find("channel/newznab:response", NS).get("total"))
    assert total == len(view)
    keys = {r["release_key"] for r in view}
    got = client.app.state.catalog.snapshot.search(SearchQuery(limit=len(view))).rows
    assert {r["release_key"] for r in got} == keys


def test_every_nzb_is_valid_and_holds_only_real_message_ids(client, built):
    out, _ = built
    truth_ids = {
        m
        for upload in pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
        for f in upload["files"]
        for m in f["message_ids"]
    }
    catalog = client.app.state.catalog
    newest = catalog.views.query(
        "SELECT release_key, segments, files FROM releases ORDER BY posted_first DESC LIMIT 60"
    ).to_pylist()
    for row in newest:
        r = client.get("/api", params={"t": "get", "apikey": "k", "id": row["release_key"].hex()})
        assert r.headers["content-type"] == "application/x-nzb", r.text[:200]
        assert DTD.validate(etree.ElementTree(etree.fromstring(r.content))), DTD.error_log
        doc = etree.fromstring(r.content)
        segments = doc.findall(".//{*}segment")
        assert len(segments) == row["segments"]
        assert len(doc.findall(".//{*}file")) == row["files"]
        assert {s.text for s in segments} <= truth_ids
        parsed = Nzb.from_str(r.text) if any(
            not (f.get("subject") or "").lower().endswith('.par2" yenc (1/1)')
            for f in doc.findall(".//{*}file")
        ) else None  # fmt: skip
        assert parsed is None or parsed.files


def test_pages_and_typed_searches_work_on_real_names(client):
    for params in (
        {"t": "tvsearch"},
        {"t": "movie"},
        {"t": "music"},
        {"t": "book"},
        {"t": "search", "q": "the"},
    ):
        r = client.get("/api", params={**params, "apikey": "k"})
        assert etree.fromstring(r.content).tag == "rss"
    assert client.get("/").status_code == 200
    assert client.get("/status").status_code == 200
    assert client.get("/groups").status_code == 200
