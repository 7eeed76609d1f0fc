"""A damaged catalog partition is left out; the server starts and serves everything else.

The oracle: a server over a catalog with one damaged file answers what a server over
the same catalog without that file answers, and its status page names the file.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from lxml import etree, html

from bench.synthetic_catalog import write_synthetic_catalog
from pipelines.nzb.writer import DTD_PATH
from serving.app import create_app
from serving.index.manager import IndexManager
from serving.index.searcher import SearchQuery
from serving.settings import Settings
from tests.catalogs import sign_in

DTD = etree.DTD(str(DTD_PATH))


@pytest.fixture(scope="module")
def healthy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("healthy")
    write_synthetic_catalog(str(root), 3_000, groups=2, per_range=1_000, seed=21)
    return root


@pytest.fixture
def catalog(healthy, tmp_path) -> Path:
    copy = tmp_path / "catalog"
    shutil.copytree(healthy, copy)
    return copy


@contextmanager
def _server(root: Path):
    settings = Settings(catalog=str(root), api_keys=["k"], build_in_process=True)
    with TestClient(create_app(settings, background=False)) as client:
        yield sign_in(client, "k")


def _partition(root: Path, table: str) -> Path:
    """The first group's first partition of `table`."""
    return sorted((root / table).glob("*/*.parquet"))[0]


def _truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _garble_footer(path: Path) -> None:
    """The footer's bytes overwritten, its length and the magic kept: the quick check
    passes, parsing it does not."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - length
    data[start : start + length] = b"\xff" * length
    path.write_bytes(bytes(data))


def _garble_pages(path: Path) -> None:
    """Every data page overwritten, the footer kept: only reading rows finds it."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[-8:-4], "little")
    end = len(data) - 8 - length
    data[4:end] = b"\x5a" * (end - 4)
    path.write_bytes(bytes(data))


def _answers(client) -> tuple[set[bytes], int, int]:
    """The index's release keys, the views' release count and the API's total."""
    catalog = client.app.state.catalog
    keys = {r["release_key"] for r in catalog.snapshot.search(SearchQuery(limit=10_000)).rows}
    view = catalog.views.query("SELECT count(*) AS n FROM releases").to_pylist()[0]["n"]
    feed = etree.fromstring(client.get("/api", params={"t": "search", "apikey": "k"}).content)
    total = feed.find("channel/{http://www.newznab.com/DTD/2010/feeds/attributes/}response")
    return keys, view, int(total.get("total"))


def _damaged_on_status_page(client) -> list[tuple[str, str, str]]:
    doc = html.fromstring(client.get("/status").text)
    rows = doc.xpath("//tr[@class='damaged-partition']")
    assert doc.get_element_by_id("damaged").text_content() == str(len(rows))
    return [tuple(td.text_content() for td in row.xpath("td")) for row in rows]


@pytest.mark.parametrize("damage", [_truncate, _garble_footer, _garble_pages])
def test_a_damaged_releases_partition_is_as_if_absent(catalog, tmp_path, damage):
    bad = _partition(catalog, "releases")
    absent = tmp_path / "absent"
    shutil.copytree(catalog, absent)
    (absent / bad.relative_to(catalog)).unlink()
    damage(bad)
    with _server(absent) as client:
        expected = _answers(client)
    with _server(catalog) as client:  # before, it did not start
        got = _answers(client)
        listed = _damaged_on_status_page(client)
    assert expected[0], "the rest of the catalog has releases"
    assert got == expected
    assert [(t, p) for t, p, _ in listed] == [("releases", str(bad))]


def test_a_damaged_partition_comes_back_when_replaced(catalog, tmp_path):
    bad = _partition(catalog, "releases")
    good = tmp_path / "good.parquet"
    shutil.copy(bad, good)
    with _server(catalog) as client:
        expected = _answers(client)
        _truncate(bad)
        client.app.state.catalog.refresh()
        assert _answers(client)[0] < expected[0]
        assert len(_damaged_on_status_page(client)) == 1
        os.replace(good, bad)  # the range indexed again
        client.app.state.catalog.refresh()
        assert _answers(client) == expected
        assert _damaged_on_status_page(client) == []


def _releases_by_file(client, bad: Path) -> tuple[list[dict], list[dict]]:
    """Releases whose span the damaged release_files partition covers, and the others."""
    catalog = client.app.state.catalog
    rows = catalog.snapshot.search(SearchQuery(limit=10_000)).rows
    assert pq.ParquetFile(bad).metadata.num_rows > 0
    first, last = (int(v) for v in bad.stem.split("-"))
    group = bad.parent.name
    inside, outside = [], []
    for row in rows:
        full = catalog.download_row(row["release_key"])
        lo, hi = (
            int(full["first_article"]),
            max(int(full["last_article"]), int(full["written_range"])),
        )
        covered = full["group"] == group and lo <= last and hi >= first
        (inside if covered else outside).append(full)
    return inside, outside


@pytest.mark.parametrize("damage", [_truncate, _garble_pages])
def test_a_damaged_release_files_partition_fails_only_its_downloads(catalog, damage):
    bad = _partition(catalog, "release_files")
    with _server(catalog) as client:
        inside, outside = _releases_by_file(client, bad)
        damage(bad)
        client.app.state.catalog.refresh()
        limits = client.app.state.catalog.limits
        assert inside and outside
        for row in inside[:3]:
            before = limits.usage("k")[1]
            r = client.get(
                "/api", params={"t": "get", "apikey": "k", "id": row["release_key"].hex()}
            )
            err = etree.fromstring(r.content)
            assert err.tag == "error" and err.get("code") == "900", r.text[:200]
            assert "damaged catalog partition" in err.get("description")
            assert str(bad) not in r.text  # the path is for the operator, not the client
            # The first try may count (the damage was found while reading); later ones do not.
            if row is not inside[0]:
                assert limits.usage("k")[1] == before
            page = html.fromstring(client.get(f"/release/{row['release_key'].hex()}").text)
            assert page.get_element_by_id("files-unreadable") is not None
            assert not page.xpath("//a[@id='nzb-link']")
        for row in outside[:3]:
            r = client.get(
                "/api", params={"t": "get", "apikey": "k", "id": row["release_key"].hex()}
            )
            assert r.headers["content-type"] == "application/x-nzb", r.text[:200]
            assert DTD.validate(etree.ElementTree(etree.fromstring(r.content)))
        listed = _damaged_on_status_page(client)
        assert [(t, p) for t, p, _ in listed] == [("release_files", str(bad))]
        # Its releases are still found: only their files are unreadable.
        assert _answers(client)[0] >= {r["release_key"] for r in inside}


def test_workers_learn_what_their_builder_found_damaged(catalog, tmp_path):
    """`serve --workers`: a partition whose pages fail the build is left out by the
    workers too, though their quick check passes it."""
    bad = _partition(catalog, "releases")
    _garble_pages(bad)
    index_dir = str(tmp_path / "index")
    builder = IndexManager(str(catalog), index_dir, in_process=True)
    worker = IndexManager(str(catalog), index_dir, follow=True)
    try:
        builder.refresh()
        assert [d.path for d in builder.health.damaged()] == [str(bad)]
        worker.refresh()
        assert [d.path for d in worker.health.damaged()] == [str(bad)]
        assert worker.snapshot.stats()["releases"] == builder.snapshot.stats()["releases"] > 0
    finally:
        worker.close()
        builder.close()
