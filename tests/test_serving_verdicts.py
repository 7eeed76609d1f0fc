"""What readers get of issue 20's passes: verdicts hide releases (a show-all option lists
them with their verdicts), dead releases are never returned, health and verdicts show in
the attributes and on the pages, merges on the release page, counts on the status page;
a verdicts or health file landing refreshes only the masks of the keys it changed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from lxml import etree, html

from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from serving.index.searcher import SearchQuery
from tests.catalogs import app_client, land_new_partitions, refreshed_index, synthetic_catalog
from tests.verdict_tables import health, merge, verdict, write_rows

NS = {"newznab": "http://www.newznab.com/DTD/2010/feeds/attributes/"}


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    return synthetic_catalog(tmp_path / "cat", 600, groups=1, per_range=300, seed=19)


def _rows(catalog: str) -> tuple[str, list[dict]]:
    """The group and the finished, shown releases of its last range."""
    fs, root = open_fs(catalog)
    part = list_table(fs, root, "releases")[-1]
    rows = [r for r in pq.read_table(part.path).to_pylist()
            if r["finished"] and not r["merged_into"]]  # fmt: skip
    return part.path.rsplit("/", 2)[-2], rows


def _feed(client, path: str = "/api", **params: str) -> tuple[int, dict[str, dict[str, str]]]:
    """The feed's total and its items' attributes by guid."""
    r = client.get(path, params={"apikey": "k1", **params})
    root = etree.fromstring(r.content)
    assert root.tag == "rss", r.text[:300]
    items = {}
    for item in root.iter("item"):
        attrs = {a.get("name"): a.get("value") for a in item.findall("newznab:attr", NS)}
        items[attrs["guid"]] = attrs
    return int(root.find(".//newznab:response", NS).get("total")), items


def _word(row: dict) -> str:
    return row["name"].split(".")[0].lower()


def _judge(catalog: str, group: str, rows: list[dict]) -> dict[str, dict]:
    """A fake, a dead verdict, a dead health check and a broken one."""
    fake, dead, gone, broken = rows[:4]
    write_rows(catalog, "release_verdicts", group, "0-1", [
        verdict(fake["release_key"], group, "fake", detail="an .exe named like a film"),
        verdict(dead["release_key"], group, "dead"),
    ])  # fmt: skip
    write_rows(catalog, "release_health", group, "0-1", [
        health(gone["release_key"], group, "dead", segments=12, missing=12),
        health(broken["release_key"], group, "broken", segments=12, missing=2),
    ])  # fmt: skip
    return {"fake": fake, "dead": dead, "gone": gone, "broken": broken}


def test_api_hides_judged_shows_all_never_dead(catalog: str) -> None:
    group, rows = _rows(catalog)
    with app_client(catalog) as client:
        total, _ = _feed(client, t="search")
        judged = _judge(catalog, group, rows)
        client.app.state.catalog.refresh()
        hidden, _ = _feed(client, t="search")
        shown, _ = _feed(client, t="search", judged="1")
        assert (hidden, shown) == (total - 3, total - 2)  # the fake; dead never
        for function in ("search", "tvsearch", "movie", "music", "book"):
            for show in ("0", "1"):
                _, items = _feed(client, t=function, q=_word(judged["fake"]), judged=show,
                                 cat=str(judged["fake"]["category"]))  # fmt: skip
                guids = set(items)
                assert (judged["fake"]["release_key"].hex() in guids) == (show == "1"), function
        fake_hex = judged["fake"]["release_key"].hex()
        _, items = _feed(client, t="search", q=_word(judged["fake"]), judged="1")
        assert items[fake_hex]["verdict"] == "fake"
        assert items[fake_hex]["verdict_detail"] == "an .exe named like a film"
        for name in ("dead", "gone"):
            key = judged[name]["release_key"].hex()
            for show in ("0", "1"):
                _, items = _feed(client, t="search", q=_word(judged[name]), judged=show)
                assert key not in items
                _, items = _feed(client, "/rss", t="0", limit="100", judged=show)
                assert key not in items
            for t in ("details", "get"):
                r = client.get("/api", params={"t": t, "apikey": "k1", "id": key})
                assert etree.fromstring(r.content).get("code") == "300"
        # the broken one is listed, its health in the attributes (all, or those asked for)
        broken_hex = judged["broken"]["release_key"].hex()
        _, items = _feed(client, t="search", q=_word(judged["broken"]))
        assert items[broken_hex]["health"] == "broken"
        assert items[broken_hex]["health_missing"] == "2/12"
        assert items[broken_hex]["health_checked"] == "1"
        _, items = _feed(client, t="search", q=_word(judged["broken"]), attrs="guid,health")
        assert "health" in items[broken_hex] and "health_missing" not in items[broken_hex]
        plain = rows[10]["release_key"].hex()
        _, items = _feed(client, t="details", id=plain)
        assert "health" not in items[plain] and "verdict" not in items[plain]
        js = client.get("/api", params={"t": "details", "apikey": "k1", "o": "json",
                                        "id": broken_hex}).json()  # fmt: skip
        attrs = {a["@attributes"]["name"]: a["@attributes"]["value"]
                 for a in js["channel"]["item"][0]["attr"]}  # fmt: skip
        assert attrs["health"] == "broken"
        # the RSS feed hides the judged one as searches do; judged=1 lists it
        assert _feed(client, "/rss", t="0")[0] == hidden
        assert _feed(client, "/rss", t="0", judged="1")[0] == shown
        r = client.get("/api", params={"t": "search", "apikey": "k1", "judged": "yes"})
        assert etree.fromstring(r.content).get("code") == "201"


def test_a_verdicts_file_landing_refreshes_only_its_keys(catalog: str, tmp_path: Path) -> None:
    group, rows = _rows(catalog)
    index_dir = str(tmp_path / "index")
    fake = rows[0]
    words = (_word(fake),)
    with refreshed_index(catalog, index_dir=index_dir) as m:
        folders = [live.segment.folder for live in m.snapshot.segments]
        generation = m.snapshot.generation
        assert m.snapshot.search(SearchQuery(words=words)).total >= 1
        before = m.snapshot.search(SearchQuery(words=words)).total
        write_rows(catalog, "release_verdicts", group, "a", [verdict(fake["release_key"], group,
                                                                    "repeated")])  # fmt: skip
        report = m.refresh()
        assert (report.kind, report.partitions) == ("judged", 1)
        # no segment built again; a new snapshot (its result cache fresh)
        assert [live.segment.folder for live in m.snapshot.segments] == folders
        assert m.snapshot.generation == generation + 1
        assert m.snapshot.search(SearchQuery(words=words)).total == before - 1
        assert m.snapshot.search(SearchQuery(words=words, judged=True)).total == before
        assert m.refresh().kind == "none"  # nothing changed: nothing read again
        # the verdict taken back (a later row, rule null): listed again
        write_rows(catalog, "release_verdicts", group, "b", [verdict(fake["release_key"], group,
                                                                    None, at=2)])  # fmt: skip
        assert m.refresh().kind == "judged"
        assert m.snapshot.search(SearchQuery(words=words)).total == before
        # health landing: dead, never listed; replaced whole by a healthy check
        write_rows(catalog, "release_health", group, "h", [health(fake["release_key"], group,
                                                                  "dead")])  # fmt: skip
        assert m.refresh().kind == "judged"
        assert m.snapshot.search(SearchQuery(words=words, judged=True)).total == before - 1
        write_rows(catalog, "release_health", group, "h", [health(fake["release_key"], group,
                                                                  "healthy")])  # fmt: skip
        assert m.refresh().kind == "judged"
        assert m.snapshot.search(SearchQuery(words=words, judged=True)).total == before
        write_rows(catalog, "release_verdicts", group, "c", [verdict(fake["release_key"], group,
                                                                    "locked", at=3)])  # fmt: skip
        m.refresh()
    # a restart on the same folder: segments reused, the verdicts laid over them again
    with refreshed_index(catalog, index_dir=index_dir) as again:
        assert [live.segment.folder for live in again.snapshot.segments] == folders
        assert again.snapshot.search(SearchQuery(words=words)).total == before - 1
        assert again.snapshot.judged.find(fake["release_key"])["rule"] == "locked"
    # a worker following the builder's folder reads the verdicts itself
    with refreshed_index(catalog, index_dir=index_dir, follow=True) as worker:
        assert worker.snapshot.search(SearchQuery(words=words)).total == before - 1


def test_a_new_range_and_a_verdict_in_one_refresh(tmp_path: Path) -> None:
    """Segments new to a snapshot get every verdict; the kept ones the changed keys."""
    larger = synthetic_catalog(tmp_path / "larger", 900, groups=1, per_range=300, seed=19)
    catalog = synthetic_catalog(tmp_path / "cat", 600, groups=1, per_range=300, seed=19)
    with refreshed_index(catalog) as m:
        before = m.snapshot.search(SearchQuery()).total
        land_new_partitions(catalog, larger)
        group, rows = _rows(catalog)  # the new range's
        write_rows(catalog, "release_verdicts", group, "a",
                   [verdict(rows[0]["release_key"], group, "unusable")])  # fmt: skip
        write_rows(catalog, "release_verdicts", group, "b",
                   [verdict(_rows(catalog)[1][0]["release_key"], group, "locked")])  # fmt: skip
        assert m.refresh().kind == "delta"
        total = m.snapshot.search(SearchQuery()).total
        assert m.snapshot.search(SearchQuery(judged=True)).total == total + 1 > before


def test_pages_show_verdicts_health_merges_and_counts(catalog: str) -> None:
    group, rows = _rows(catalog)
    with app_client(catalog) as client:
        judged = _judge(catalog, group, rows)
        into, absorbed = rows[5], rows[6]
        gone_key = bytes(range(20))  # a release merged away (its key no longer served)
        write_rows(catalog, "release_merges", group, "0-1", [
            merge(absorbed["release_key"], into["release_key"], group, "par2"),
            merge(gone_key, into["release_key"], group, "sidecar"),
        ])  # fmt: skip
        client.app.state.catalog.refresh()
        fake = judged["fake"]
        # search: hidden unless "show all"; then with its verdict
        doc = html.fromstring(client.get("/", params={"q": _word(fake)}).text)
        names = [a.text_content() for a in doc.xpath("//tr[@class='release']/td[1]/a")]
        assert fake["name"] not in names
        doc = html.fromstring(client.get("/", params={"q": _word(fake), "judged": "1"}).text)
        row = next(tr for tr in doc.xpath("//tr[@class='release']")
                   if tr.xpath("td[1]/a")[0].text_content() == fake["name"])  # fmt: skip
        assert row.xpath(".//span[contains(@class, 'verdict-fake')]")[0].text_content() == "fake"
        assert doc.xpath("//input[@name='judged']/@checked")
        assert "judged=1" in doc.xpath("//a[@id='rss-link']/@href")[0]
        # the release page: the verdict with its detail, health, grabs
        doc = html.fromstring(client.get(f"/release/{fake['release_key'].hex()}").text)
        assert doc.xpath("//dd[@id='verdict']/span")[0].text_content() == "fake"
        assert doc.xpath("//span[@id='verdict-detail']")[0].text_content() == (
            "an .exe named like a film"
        )
        assert doc.xpath("//dd[@id='grabs']")[0].text_content() == "0"
        doc = html.fromstring(client.get(f"/release/{judged['broken']['release_key'].hex()}").text)
        assert "broken" in doc.xpath("//dd[@id='health']")[0].text_content()
        assert doc.xpath("//span[@id='health-missing']")[0].text_content() == "2 of 12"
        doc = html.fromstring(client.get(f"/release/{judged['gone']['release_key'].hex()}").text)
        assert doc.xpath("//p[@id='dead']") and not doc.xpath("//a[@id='nzb-link']")
        # merges: what went in, and how; a merged-away key leads to the release it joined
        doc = html.fromstring(client.get(f"/release/{into['release_key'].hex()}").text)
        merged = [[td.text_content() for td in tr.xpath("td")][:2]
                  for tr in doc.xpath("//table[@id='merges']//tr[@class='merge']")]  # fmt: skip
        assert sorted(merged) == sorted([[absorbed["name"], "par2"], [gone_key.hex(), "sidecar"]])
        r = client.get(f"/release/{gone_key.hex()}", follow_redirects=False)
        assert (
            r.status_code == 303
            and r.headers["location"] == f"/release/{into['release_key'].hex()}"
        )
        # the status page's counts
        doc = html.fromstring(client.get("/status").text)
        cell = lambda i: doc.xpath(f"//td[@id='{i}']")[0].text_content()  # noqa: E731
        assert (cell("verdicts-fake"), cell("verdicts-dead")) == ("1", "1")
        assert (cell("health-dead"), cell("health-broken")) == ("1", "1")
        assert (cell("merges-par2"), cell("merges-sidecar")) == ("1", "1")


def test_status_page_without_the_tables(catalog: str) -> None:
    with app_client(catalog) as client:
        doc = html.fromstring(client.get("/status").text)
        assert doc.xpath("//table[@id='verdict-counts']//td")[0].text_content() == "none yet"


def test_every_query_path_leaves_out_what_it_must(tmp_path: Path) -> None:
    """Word, common-word (bitsets), category, size, password=0 and no-filter queries, each
    with and without show-all: the releases they listed before the verdicts, less the
    dead and (unless show-all) the judged ones, in the same order."""
    import numpy as np

    catalog = synthetic_catalog(tmp_path / "cat", 3_000, groups=2, per_range=1_000, seed=7)
    fs, root = open_fs(catalog)
    rows = [r for p in list_table(fs, root, "releases") for r in pq.read_table(p.path).to_pylist()
            if r["finished"] and not r["merged_into"]]  # fmt: skip
    rng = np.random.default_rng(7)
    picked = rng.choice(len(rows), 400, replace=False)
    rules = ["fake", "repeated", "locked", "unusable", "dead", None]
    verdicts, checks = [], []
    for i, n in enumerate(picked.tolist()):
        r = rows[n]
        if i % 3:
            verdicts.append(verdict(r["release_key"], r["group"], rules[i % len(rules)]))
        else:
            checks.append(
                health(r["release_key"], r["group"], ["dead", "broken", None][i % 9 // 3])
            )
    judged = {v["release_key"] for v in verdicts if v["rule"]}
    gone = {v["release_key"] for v in verdicts if v["rule"] == "dead"}
    gone |= {c["release_key"] for c in checks if c["verdict"] == "dead"}
    queries = [SearchQuery(limit=100_000), SearchQuery(passworded=False, limit=100_000),
               SearchQuery(categories=(5000,), limit=100_000),
               SearchQuery(min_bytes=1 << 20, limit=100_000)]  # fmt: skip
    words = [w for r in rows[:50] for w in r["name"].lower().split(".")[:2]]
    queries += [SearchQuery(words=(w,), limit=100_000) for w in sorted(set(words))[:20]]
    queries += [SearchQuery(words=("1080p",), limit=100_000)]  # a common word: bitsets
    with refreshed_index(catalog) as m:
        before = [[r["release_key"] for r in m.snapshot.search(q).rows] for q in queries]
        assert all(set(keys) & judged for keys in before[:4])  # each loses some
        write_rows(catalog, "release_verdicts", "all", "v", verdicts)
        write_rows(catalog, "release_health", "all", "h", checks)
        assert m.refresh().kind == "judged"
        for q, keys in zip(queries, before, strict=True):
            for show in (False, True):
                out = gone if show else gone | judged
                found = m.snapshot.search(replace(q, judged=show))
                want = [k for k in keys if k not in out]
                assert [r["release_key"] for r in found.rows] == want, q
                assert found.total == len(want)


def test_a_verdict_read_by_a_refresh_that_failed_still_lands(tmp_path: Path) -> None:
    """A refresh reads a verdict, then its build fails on a damaged partition (left out,
    the refresh tried again): the verdict is laid over the snapshot served after."""
    larger = synthetic_catalog(tmp_path / "larger", 900, groups=1, per_range=300, seed=19)
    catalog = synthetic_catalog(tmp_path / "cat", 600, groups=1, per_range=300, seed=19)
    group, rows = _rows(catalog)
    words = (_word(rows[0]),)
    with refreshed_index(catalog) as m:
        before = m.snapshot.search(SearchQuery(words=words)).total
        land_new_partitions(catalog, larger)
        fs, root = open_fs(catalog)
        new = Path(list_table(fs, root, "releases")[-1].path)
        data = bytearray(new.read_bytes())  # every page garbled, the footer kept
        length = int.from_bytes(data[-8:-4], "little")
        end = len(data) - 8 - length
        data[4:end] = b"\x5a" * (end - 4)
        new.write_bytes(bytes(data))
        write_rows(catalog, "release_verdicts", group, "a",
                   [verdict(rows[0]["release_key"], group, "fake")])  # fmt: skip
        m.refresh()
        assert [d.path for d in m.health.damaged()] == [str(new)]
        assert m.snapshot.search(SearchQuery(words=words)).total == before - 1
