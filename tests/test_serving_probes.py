"""What readers get of the article pass: `release_probes` rows and named pending releases.

A range's probe file landing shows within one refresh, rebuilding only the segments that
read the range; inner names and NFO titles are searched; the `password` attribute, the
`password=0` filter, the NZB's password meta and the release and status pages follow it.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from lxml import etree

from pipelines.catalog.partitions import list_table
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import open_fs
from tests.catalogs import (
    app_client,
    probe_row,
    synthetic_catalog,
    write_named_releases,
    write_release_probes,
)

NS = {"newznab": "http://www.newznab.com/DTD/2010/feeds/attributes/"}


def _items(body: bytes) -> list[dict[str, object]]:
    root = etree.fromstring(body)
    out = []
    for item in root.iter("item"):
        attrs = {a.get("name"): a.get("value") for a in item.findall("newznab:attr", NS)}
        out.append({"title": item.findtext("title"), "guid": attrs["guid"], **attrs})
    return out


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    return synthetic_catalog(tmp_path / "cat", 600, groups=1, per_range=300, seed=19)


def _ranges(catalog: str) -> list[tuple[str, int, int, list[dict]]]:
    """Each plain releases partition: group, span, its finished rows."""
    fs, root = open_fs(catalog)
    out = []
    for p in list_table(fs, root, "releases"):
        rows = [
            r for r in pq.read_table(p.path).to_pylist() if r["finished"] and not r["merged_into"]
        ]
        out.append((p.path.rsplit("/", 2)[-2], p.first, p.last, rows))
    return out


def _search(client, **params: str) -> list[dict[str, object]]:
    r = client.get("/api", params={"t": "search", "apikey": "k1", **params})
    assert r.status_code == 200, r.text[:300]
    return _items(r.content)


def total(body: bytes) -> int:
    return int(etree.fromstring(body).find(".//newznab:response", NS).get("total"))


def _details(client, key: bytes) -> dict[str, object]:
    r = client.get("/api", params={"t": "details", "apikey": "k1", "id": key.hex()})
    return _items(r.content)[0]


def test_probes_land_searched_and_shown(catalog: str) -> None:
    group, first, last, rows = _ranges(catalog)[-1]
    # the passworded one holds a word common enough to have a bitset: password=0 then
    # ANDs the passworded bits out of the bitsets' answer
    locked = next(r for r in rows if "1080p" in r["name"].lower().split("."))
    inner, plain = [r for r in rows if r is not locked][:2]
    with app_client(catalog) as client:
        catalog_obj = client.app.state.catalog
        before = _search(client, q=locked["name"].split(".")[0])
        assert any(i["guid"] == locked["release_key"].hex() for i in before)
        assert all(i["password"] == "0" for i in before)  # unknown: "0" (items.password_attr)
        write_release_probes(catalog, group, first, last, [
            probe_row(locked["release_key"], group, password=1, password_text="s3cr3t&<x>",
                      inner_names=["Qzxv.Hidden.Title.2019.1080p.mkv"], nfo_title="Nfo Wbrvz"),
            probe_row(inner["release_key"], group, password=2, inner_names=["Inner.rar"]),
            probe_row(plain["release_key"], group, password=0),
        ])  # fmt: skip
        catalog_obj.refresh()
        report = catalog_obj.index.last_refresh
        # only the range is built again, into a segment of its own that outranks its rows
        # in the old segment; the old segment is kept as it was
        assert report is not None and (report.kind, report.partitions) == ("delta", 1)

        found = _search(client, q="qzxv hidden")
        assert [i["guid"] for i in found] == [locked["release_key"].hex()]
        assert found[0]["password"] == "1"
        assert [i["guid"] for i in _search(client, q="wbrvz")] == [locked["release_key"].hex()]
        assert _details(client, inner["release_key"])["password"] == "2"
        assert _details(client, plain["release_key"])["password"] == "0"
        # password=0 (NZBHydra): passworded left out, an inner archive kept
        assert not _search(client, q="qzxv", password="0")
        assert _search(client, q="inner", password="0")
        everything = client.get("/api", params={"t": "search", "apikey": "k1"}).content
        unlocked = client.get(
            "/api", params={"t": "search", "apikey": "k1", "password": "0"}
        ).content
        assert total(unlocked) == total(everything) - 1
        common = {"t": "search", "apikey": "k1", "q": "1080p"}
        with_locked = total(client.get("/api", params=common).content)
        without = total(client.get("/api", params={**common, "password": "0"}).content)
        assert without == with_locked - 1
        js = client.get("/api", params={"t": "details", "apikey": "k1", "o": "json",
                                        "id": locked["release_key"].hex()}).json()  # fmt: skip
        attrs = {
            a["@attributes"]["name"]: a["@attributes"]["value"]
            for a in js["channel"]["item"][0]["attr"]
        }
        assert attrs["password"] == "1"

        nzb = client.get(
            "/api", params={"t": "get", "apikey": "k1", "id": locked["release_key"].hex()}
        )
        head = etree.fromstring(nzb.content).find("{http://www.newzbin.com/DTD/2003/nzb}head")
        meta = {m.get("type"): m.text for m in head}
        assert meta["password"] == "s3cr3t&<x>"  # the known password, never "yes"/"no"
        nzb2 = client.get(
            "/api", params={"t": "get", "apikey": "k1", "id": inner["release_key"].hex()}
        )
        assert b'type="password"' not in nzb2.content

        page = client.get(f"/release/{locked['release_key'].hex()}").text
        assert "Qzxv.Hidden.Title.2019.1080p.mkv" in page and 'id="passworded"' in page
        assert "s3cr3t&amp;&lt;x&gt;" in page
        web = client.get("/", params={"q": "qzxv"}).text
        assert locked["name"] in web and "passworded" in web

        status = client.get("/status").text
        assert 'id="probed">3<' in status and 'id="passworded">1<' in status

        # probed again: the file replaced whole, the newest probe wins
        write_release_probes(catalog, group, first, last, [
            probe_row(locked["release_key"], group, password=0, probed_at=2,
                      inner_names=["Other.Name.mkv"]),
        ])  # fmt: skip
        catalog_obj.refresh()
        report = catalog_obj.index.last_refresh
        assert report is not None and (report.kind, report.partitions) == ("delta", 1)
        assert not _search(client, q="qzxv")
        again = _search(client, q="other name")
        assert [i["password"] for i in again if i["guid"] == locked["release_key"].hex()] == ["0"]


def test_named_pending_release_served_like_any(catalog: str) -> None:
    """A pending release the article pass named comes in as `releases/<g>/probe-<a>-<b>`,
    its files already in the range's release_files under its key."""
    group, first, last, rows = _ranges(catalog)[-1]
    _, root = open_fs(catalog)
    files_path = f"{root}/release_files/{group}/{first}-{last}.parquet"
    files = pq.read_table(files_path)
    donor = rows[0]
    key = bytes(20 * [7])
    mine = [r for r in files.to_pylist() if r["release_key"] == donor["release_key"]]
    for r in mine:
        r["release_key"] = key
    merged = pa.concat_tables([files, pa.Table.from_pylist(mine, schema=files.schema)])
    merged = merged.sort_by("release_key")
    write_partition(catalog, "release_files", group, first, last, merged)
    named = {**donor, "release_key": key, "identity_key": key, "name": "Named.By.Par2.Vqkz.2020",
             "source": "par2", "finished": True, "readable": True,
             "posted_first": 1_900_000_000}  # newest: first in the feed  # fmt: skip
    with app_client(catalog) as client:
        catalog_obj = client.app.state.catalog
        write_named_releases(catalog, group, first, last, [named])
        write_release_probes(catalog, group, first, last, [
            probe_row(key, group, pending=True, outcome="named", name=named["name"],
                      source="par2", tool="ngPost", poster=donor["poster"],
                      inner_names=["Named.By.Par2.Vqkz.2020.mkv"]),
        ])  # fmt: skip
        catalog_obj.refresh()
        found = _search(client, q="vqkz")
        assert [i["guid"] for i in found] == [key.hex()]
        rss = client.get("/rss", params={"t": "0", "apikey": "k1", "limit": "100"}).content
        assert key.hex() in rss.decode()
        nzb = client.get("/api", params={"t": "get", "apikey": "k1", "id": key.hex()})
        assert nzb.headers["content-type"].startswith("application/x-nzb")
        assert nzb.content.count(b"<file ") == len(mine)
        page = client.get(f"/release/{key.hex()}").text
        assert "Named.By.Par2.Vqkz.2020.mkv" in page
        status = client.get("/status").text
        assert 'id="named">1<' in status and "ngPost" in status


@pytest.mark.parametrize("value", ["yes", "2", "-1"])
def test_password_parameter_checked(catalog: str, value: str) -> None:
    with app_client(catalog) as client:
        r = client.get("/api", params={"t": "search", "apikey": "k1", "password": value})
        assert etree.fromstring(r.content).get("code") == "201"


def test_probes_survive_merges_and_restarts(catalog: str, tmp_path: Path) -> None:
    """Probe-only rebuilds outrank the old segment's rows; merging the small segments and
    restarting on the same index folder keep what the probes said."""
    from serving.index.searcher import SearchQuery
    from tests.catalogs import refreshed_index

    ranges = _ranges(catalog)
    index_dir = str(tmp_path / "index")
    words = []
    with refreshed_index(catalog, index_dir=index_dir, max_deltas=2, batch_rows=10_000) as m:
        for i, (group, first, last, rows) in enumerate(ranges):
            word = f"zzprobe{i}"
            words.append((word, rows[0]["release_key"]))
            write_release_probes(catalog, group, first, last, [
                probe_row(rows[0]["release_key"], group, inner_names=[f"{word}.mkv"]),
            ])  # fmt: skip
            m.refresh()
        for _ in range(3):  # another landing triggers the merge of the small ones
            m.refresh()
        for word, key in words:
            found = m.snapshot.search(SearchQuery(words=(word,)))
            assert found.total == 1 and found.rows[0]["release_key"] == key
        total = m.snapshot.stats()["releases"]
    with refreshed_index(catalog, index_dir=index_dir) as again:
        assert again.snapshot.stats()["releases"] == total
        for word, key in words:
            found = again.snapshot.search(SearchQuery(words=(word,)))
            assert found.total == 1 and found.rows[0]["release_key"] == key
