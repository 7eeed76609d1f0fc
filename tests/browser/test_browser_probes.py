"""What the article pass found, in a real browser (Debian's headless Chromium): a release
page lists the archive's inner names and marks it passworded, and the search page marks
the passworded result and finds it by an inner name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from tests.browser.devtools import NEEDS_CHROMIUM
from tests.browser.test_browser_pages import _dump, _serve
from tests.catalogs import app_settings, module_catalog, probe_row, write_release_probes

pytestmark = NEEDS_CHROMIUM
INNER = ["Kwyjibo.Inner.Feature.2021.1080p.mkv", "Kwyjibo.Inner.Feature.2021.nfo"]


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> tuple[str, dict]:
    """A catalog one of whose releases the article pass found passworded, with its listing."""
    root = module_catalog(tmp_path_factory, 600, groups=1, per_range=300, seed=23)
    fs, base = open_fs(root)
    part = list_table(fs, base, "releases")[-1]
    group = Path(part.path).parent.name
    row = next(r for r in pq.read_table(part.path).to_pylist() if r["finished"])
    write_release_probes(root, group, part.first, part.last, [
        probe_row(row["release_key"], group, password=1, inner_names=INNER),
    ])  # fmt: skip
    return root, row


@pytest.fixture(scope="module")
def url(probed) -> Iterator[str]:
    yield from _serve(app_settings(probed[0], page_size=25, public_pages=True))


def test_release_page_lists_inner_names_and_marks_passworded(probed, url):
    row = probed[1]
    doc = _dump(f"{url}/release/{row['release_key'].hex()}")
    assert [li.text_content() for li in doc.xpath("//ul[@id='inner-names']/li")] == INNER
    assert doc.xpath("//dd[@id='passworded']")[0].text_content().strip() == "Passworded"


def test_search_finds_by_inner_name_and_marks_it(probed, url):
    doc = _dump(f"{url}/?q=kwyjibo+feature")
    rows = doc.xpath("//tr[@class='release']")
    assert len(rows) == 1
    assert rows[0].xpath(".//span[@class='passworded']")
    assert probed[1]["name"] in rows[0].text_content()
