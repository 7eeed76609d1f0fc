"""The spot reader end to end: a generated corpus with spot groups, indexed by the header
pass, served by serve-nntp, read by `spots` (issue 28)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from cli.main import main
from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.generate import GenerateConfig
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer
from pipelines.spots.reader import read_spots
from pipelines.spots.store import live_spots, load_state
from tests.corpora import replayed

CONFIG = GenerateConfig(groups=1, articles=4_000, seed=11, range_size=5_000, chunk=1_000,
                        spots=24)  # fmt: skip
HOUR = 3600


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("spots")
    gen, _ = replayed(tmp / "gen", tmp / "cat", CONFIG)
    truth = pq.read_table(gen.out / "truth" / "spots.parquet").to_pylist()
    uploads = {
        u["upload_id"]: u for u in pq.read_table(gen.out / "truth/uploads.parquet").to_pylist()
    }
    end = max(t["posted"] for t in truth)
    catalog = str(tmp / "cat")
    with NNTPServer(gen.corpus, port=0) as srv:
        provider = Provider("127.0.0.1", srv.port)
        first = read_spots(catalog, provider, now=end + HOUR)
        live_first = live_spots(catalog)
        again = read_spots(catalog, provider, now=end + HOUR)
        later = read_spots(catalog, provider, now=end + 30 * HOUR)
    return {"truth": truth, "uploads": uploads, "catalog": catalog, "first": first,
            "again": again, "later": later, "live_first": live_first,
            "live": live_spots(catalog), "corpus": gen.corpus}  # fmt: skip


def test_every_valid_spot_is_listed_and_no_other(world):
    shown = ("listed", "nzb_gone", "nzb_unreadable")
    want = {t["message_id"] for t in world["truth"] if t["kind"] == "spot" and t["expect"] in shown}
    assert {r["message_id"] for r in world["live"]} == want


def test_rejected_spots_are_counted_by_reason(world):
    kept = ("listed", "deleted", "nzb_gone", "nzb_unreadable")
    expected = Counter(t["expect"] for t in world["truth"] if t["expect"] not in kept)
    assert +world["first"].rejected == expected
    deletes = [t for t in world["truth"] if t["kind"] == "delete" and t["expect"] == "listed"]
    assert world["first"].deletes == len(deletes) > 0


def _release_ids(catalog: str, key: bytes) -> set[str]:
    fs, root = open_fs(catalog)
    ids: set[str] = set()
    for p in list_table(fs, root, "release_files", stat=False):
        t = read_parquet(fs, p.path)
        for row in t.to_pylist():
            if row["release_key"] == key:
                ids.update(row["seg_ids"])
    return ids


def test_spots_of_indexed_uploads_link_to_their_release(world):
    by_id = {t["message_id"]: t for t in world["truth"]}
    linked = [r for r in world["live_first"] if by_id[r["message_id"]]["upload_id"] >= 0
              and by_id[r["message_id"]]["expect"] == "listed"]  # fmt: skip
    assert linked
    right = 0
    for r in linked:
        upload = world["uploads"][by_id[r["message_id"]]["upload_id"]]
        posted = {m for f in upload["files"] for m in f["message_ids"]}
        assert r["nzb_outcome"] == "linked", r
        held = _release_ids(world["catalog"], r["release_key"])
        assert held and held <= posted  # never another upload's release
        right += 1
    assert right / len(linked) >= 0.99


def test_spots_without_an_upload_wait_a_day_then_become_releases(world):
    by_id = {t["message_id"]: t for t in world["truth"]}
    alone = {m for m, t in by_id.items()
             if t["upload_id"] < 0 and t["kind"] == "spot" and t["expect"] == "listed"}  # fmt: skip
    assert alone
    first = {r["message_id"]: r["nzb_outcome"] for r in world["live_first"]}
    now = max(t["posted"] for t in world["truth"]) + HOUR
    young = {m for m in alone if now - by_id[m]["posted"] < 24 * HOUR}
    assert young and {first[m] for m in young} == {"waiting"}
    assert {first[m] for m in alone - young} <= {"inserted"}
    later = {r["message_id"]: r for r in world["live"]}
    assert {later[m]["nzb_outcome"] for m in alone} == {"inserted"}
    assert not load_state(world["catalog"], "free.pt").waiting
    # a release of its own is named by its spot's title (the spot's NZB names nothing),
    # whether it waited a day or not
    names = {}
    for path in Path(world["catalog"], "releases").glob("*/import-*.parquet"):
        t = pq.read_table(path, columns=["release_key", "name"])
        names.update(zip(t["release_key"].to_pylist(), t["name"].to_pylist(), strict=True))
    assert {names[later[m]["release_key"]] for m in alone} == {later[m]["title"] for m in alone}


def test_a_second_run_reads_nothing_new(world):
    assert world["again"].articles == 0 and world["again"].spots == 0
    assert not world["again"].nzbs  # waiting spots are matched again an hour on, not at once


def test_passwords_and_broken_nzbs_are_noted(world):
    by_id = {t["message_id"]: t for t in world["truth"]}
    for r in world["live"]:
        t = by_id[r["message_id"]]
        assert (r["passwords"] or [None])[0] == t["password"]
        if t["expect"] == "nzb_gone":
            assert r["nzb_outcome"] == "gone"
        if t["expect"] == "nzb_unreadable":
            assert r["nzb_outcome"] == "unreadable"


def test_the_command_reads_and_summarises(world, tmp_path: Path, capsys):
    with NNTPServer(world["corpus"], port=0) as srv:
        code = main(["spots", "--server", f"127.0.0.1:{srv.port}", "--catalog",
                     str(tmp_path / "cat"), "--quiet", "--now", "2000000000"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "spots" in out and "rejected" in out


def test_readers_show_the_spot_its_attrs_and_its_password(world):
    from pipelines.nzbimport.document import read_nzb
    from pipelines.spots.sources import known_passwords
    from tests.catalogs import app_client

    with_pw = [r for r in world["live"] if r["passwords"] and r["release_key"]]
    assert with_pw
    spot = with_pw[0]
    key = spot["release_key"]
    assert known_passwords(world["catalog"])[key] == spot["passwords"][0]
    with app_client(world["catalog"]) as client:
        got = client.get("/api", params={"t": "details", "id": key.hex(), "apikey": "k1"})
        assert f'name="spotid" value="{spot["message_id"]}"' in got.text, got.text[:800]
        nzb = client.get("/api", params={"t": "get", "id": key.hex(), "apikey": "k1"})
        assert read_nzb(nzb.content).passwords == [spot["passwords"][0]]
        page = client.get(f"/release/{key.hex()}")
        assert spot["title"] in page.text and 'id="spot"' in page.text


def test_an_imported_release_says_where_it_came_from(world, tmp_path: Path):
    from pipelines.nzbimport.run import import_paths
    from tests.catalogs import app_client

    nzb = tmp_path / "mine.nzb"
    nzb.write_text('<nzb><head><meta type="title">My Own Import</meta></head>'
                   '<file poster="me" date="1700000000" subject="&quot;a.mkv&quot; yEnc (1/1)">'
                   "<groups><group>a.b.mine</group></groups><segments>"
                   '<segment number="1" bytes="9">only@mine</segment>'
                   "</segments></file></nzb>")  # fmt: skip
    import_paths([str(nzb)], world["catalog"], now=1_700_000_000)
    key = (
        pq.read_table(f"{world['catalog']}/_imports/log")
        .filter(pc.field("path") == str(nzb))["release_key"][0]
        .as_py()
    )
    with app_client(world["catalog"]) as client:
        got = client.get("/api", params={"t": "details", "id": key.hex(), "apikey": "k1"})
        assert 'name="source" value="nzb"' in got.text, got.text[:800]
        page = client.get(f"/release/{key.hex()}")
        assert 'id="import-path"' in page.text and "mine.nzb" in page.text


def test_the_asset_reads_spots(world, tmp_path: Path):
    import dagster as dg

    from assets.resources import CatalogResource, NNTPResource
    from assets.spots import spots

    with NNTPServer(world["corpus"], port=0) as srv:
        result = dg.materialize(
            [spots],
            resources={"catalog": CatalogResource(url=str(tmp_path / "cat")),
                       "nntp": NNTPResource(host="127.0.0.1", port=srv.port)},
        )  # fmt: skip
    assert result.success
    meta = result.asset_materializations_for_node("spots")[0].metadata
    assert meta["spots"].value == world["first"].spots


def test_the_live_stage_reads_spots_then_rests(world, tmp_path: Path):
    from pipelines.index.replay import ReplaySummary
    from pipelines.live_stages import Stages, StageSettings
    from pipelines.nntp.pool import ConnectionPool

    only_spots = StageSettings(probe=False, merge=False, health=False, judge=False)
    with NNTPServer(world["corpus"], port=0) as srv:
        pool = ConnectionPool(Provider("127.0.0.1", srv.port, connections=1))
        try:
            stages = Stages(str(tmp_path / "cat"), [], pool, only_spots)
            first = stages.run(ReplaySummary())
            second = stages.run(ReplaySummary())  # within spots_every: rests
        finally:
            pool.close()
    assert first.spots is not None and first.spots.spots == world["first"].spots
    assert second.spots is None and not first.problems


def test_every_spot_nzb_read_is_the_nzb_posted(world):
    log = {r["path"]: r for r in pq.read_table(f"{world['catalog']}/_imports/log").to_pylist()
           if r["origin"] == "spot"}  # fmt: skip
    readable = [t for t in world["truth"]
                if t["kind"] == "spot" and t["expect"] in ("listed", "deleted")]  # fmt: skip
    # a deleted spot's NZB may never be imported (deleted while it waited)
    read = [t for t in readable if t["expect"] == "listed" or t["message_id"] in log]
    assert read and all(log[t["message_id"]]["nzb_sha1"] == t["nzb_sha1"] for t in read)


def test_a_deleted_spot_leaves_no_release_of_its_own(world):
    import duckdb

    from pipelines.catalog.layout import table_glob
    from pipelines.catalog.versions import newest_sql

    by_id = {t["message_id"]: t for t in world["truth"]}
    gone = {m for m, t in by_id.items() if t["expect"] == "deleted"}
    alone_gone = {m for m in gone if by_id[m]["upload_id"] < 0}
    assert alone_gone  # the feed deletes a spot that had no upload of its own
    log = pq.read_table(f"{world['catalog']}/_imports/log").to_pylist()
    theirs = {r["release_key"] for r in log if r["path"] in gone and r["outcome"] == "inserted"}
    withdrawn = {r["release_key"] for r in log if r["outcome"] == "withdrawn"}
    assert theirs <= withdrawn  # inserted before its delete came: hidden since
    shown = newest_sql(f"read_parquet('{table_glob(world['catalog'], 'releases')}', "
                       "union_by_name=true)")  # fmt: skip
    keys = {bytes(k) for (k,) in duckdb.sql(f"SELECT release_key FROM ({shown})").fetchall()}
    assert not keys & theirs


def test_health_and_the_judge_see_imported_releases(world):
    from pipelines.health.sweep import sweep
    from pipelines.judge.run import judge_catalog
    from pipelines.nntp.pool import ConnectionPool

    log = pq.read_table(f"{world['catalog']}/_imports/log").to_pylist()
    mine = {r["release_key"] for r in log if r["outcome"] == "inserted" and r["origin"] == "spot"}
    assert mine
    now = max(t["posted"] for t in world["truth"]) + 40 * HOUR
    with NNTPServer(world["corpus"], port=0) as srv:
        pool = ConnectionPool(Provider("127.0.0.1", srv.port, connections=2))
        try:
            sweep(world["catalog"], pool, now=now)
        finally:
            pool.close()
    fs, root = open_fs(world["catalog"])
    checked = {}
    for p in fs.glob(f"{root}/release_health/*/*.parquet"):
        for r in read_parquet(fs, p).to_pylist():
            checked[r["release_key"]] = r["verdict"]
    # the spots' own uploads were never posted here: their articles are missing
    assert mine <= set(checked) and {checked[k] for k in mine} == {"dead"}
    judged = judge_catalog(world["catalog"], everything=True, now=now)
    assert judged.judged >= len(mine)
