"""What readers get of several providers: the release page and the Newznab attrs say
which providers serve a release whole; the status page shows the newest `providers
check` and the providers rested. A health row from before issue 29 shows as before."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from lxml import etree, html

from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from pipelines.health.store import read_health
from pipelines.providers.resting import FOREVER, Rest
from pipelines.providers.status import rest_recorder, write_check
from tests.catalogs import app_client, synthetic_catalog
from tests.verdict_tables import health, write_rows

NS = {"newznab": "http://www.newznab.com/DTD/2010/feeds/attributes/"}


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    return synthetic_catalog(tmp_path / "cat", 300, groups=1, per_range=300, seed=7)


def _attrs(client, key: str) -> dict[str, str]:
    r = client.get("/api", params={"t": "details", "apikey": "k1", "id": key})
    item = etree.fromstring(r.content).find(".//item")
    return {a.get("name"): a.get("value") for a in item.findall("newznab:attr", NS)}


def test_which_providers_serve_a_release_on_its_page_and_in_its_attrs(catalog: str) -> None:
    fs, root = open_fs(catalog)
    part = list_table(fs, root, "releases")[-1]
    group = part.path.rsplit("/", 2)[-2]
    rows = [r for r in pq.read_table(part.path).to_pylist()
            if r["finished"] and not r["merged_into"]]  # fmt: skip
    both, one, old = (r["release_key"] for r in rows[:3])
    # a file written before issue 29: without the providers' columns
    old_file = write_rows(
        catalog, "release_health", group, "sweep-old", [health(old, group, "healthy")]
    )
    pq.write_table(pq.read_table(old_file).drop(["providers", "provider_missing"]), old_file)
    write_rows(catalog, "release_health", group, "sweep-new", [
        {**health(both, group, "healthy"), "providers": ["a", "b"], "provider_missing": [0, 0]},
        {**health(one, group, "healthy"), "providers": ["a", "b"], "provider_missing": [3, 0]},
    ])  # fmt: skip
    # the old file reads with the columns null
    rows_read = {bytes(r["release_key"]): r for r in read_health(catalog).rows.to_pylist()}
    assert rows_read[old]["providers"] is None and rows_read[one]["provider_missing"] == [3, 0]
    with app_client(catalog) as client:
        assert _attrs(client, both.hex())["health_providers"] == "a,b"
        assert _attrs(client, one.hex())["health_providers"] == "b"
        assert "health_providers" not in _attrs(client, old.hex())
        assert _attrs(client, old.hex())["health"] == "healthy"
        doc = html.fromstring(client.get(f"/release/{one.hex()}").text)
        shown = [s.text_content() for s in doc.xpath("//span[@id='health-providers']/span")]
        assert shown == ["a: 3 missing", "b: serves all"]
        doc = html.fromstring(client.get(f"/release/{old.hex()}").text)
        assert not doc.xpath("//span[@id='health-providers']")


def test_the_status_page_shows_the_check_and_the_rests(catalog: str) -> None:
    with app_client(catalog) as client:
        assert not html.fromstring(client.get("/status").text).xpath("//table[@id='providers']")
    write_check(catalog, {
        "checked_at": 1_700_000_000, "groups": ["g"],
        "providers": [
            {"name": "main", "state": "ok", "problem": "", "greeting": "200 hello",
             "compression": "xfeature", "round_trip_ms": 1.5, "overview_lines_per_s": 9000.0,
             "groups": [{"group": "g", "carried": True, "retention_days": 12.5}]},
            {"name": "down", "state": "down", "problem": "cannot connect", "greeting": "",
             "compression": "", "round_trip_ms": None, "overview_lines_per_s": None,
             "groups": []},
        ],
        "fingerprint": {"pairs": [], "backbones": [["main"], ["down"]]},
        "mismatches": ["down and main: the settings say the same backbone, the answers differ"],
    })  # fmt: skip
    record = rest_recorder(catalog)
    record(Rest("down", 1_700_000_100, 60.0, 8, "ServiceGone: cannot connect"))
    record(Rest("locked", 1_700_000_200, FOREVER, 1, "authentication failed: 481"))
    with app_client(catalog) as client:
        doc = html.fromstring(client.get("/status").text)
    states = [
        tr.xpath("td")[1].text_content() for tr in doc.xpath("//table[@id='providers']//tr[@class]")
    ]
    assert states == ["ok", "down: cannot connect"]
    assert "12.5 days" in doc.xpath("//table[@id='providers']")[0].text_content()
    assert (
        doc.xpath("//p[@class='provider-mismatch']")[0]
        .text_content()
        .startswith("Check the settings: down and main")
    )
    assert [tr.text_content() for tr in doc.xpath("//tr[@class='backbone']/td[2]")] == [
        "main",
        "down",
    ]
    rests = [
        [td.text_content() for td in tr.xpath("td")]
        for tr in doc.xpath("//tr[@class='provider-rest']")
    ]
    assert [(r[0], r[2]) for r in rests] == [("locked", "the run (credentials)"), ("down", "60 s")]
