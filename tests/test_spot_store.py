"""Spots are written once and deletes applied when read (`pipelines.spots.store`)."""

from __future__ import annotations

from typing import Any

from pipelines.spots.store import PERSONAL_DELETE_SECONDS, live_spots, write_spots

T = 1_700_000_000


def spot(mid: str, spotter: str | None, posted: int = T, **more: Any) -> dict[str, Any]:
    return {"article": 1, "message_id": mid, "kind": "spot", "valid": True, "posted": posted,
            "read_at": T, "spotter_id": spotter, "title": mid, **more}  # fmt: skip


def delete(mid: str, target: str, spotter: str | None, posted: int) -> dict[str, Any]:
    return {**spot(mid, spotter, posted), "kind": "delete", "target": target}


def test_deletes_apply_by_who_and_when(tmp_path):
    rows = [
        spot("a", "X"), spot("b", "X"), spot("c", "X"), spot("d", "X"),
        spot("bad", "X", valid=False, reason="bad_xml_signature"),
        delete("d1", "a", "X", T + 3600),  # its own spotter: gone
        delete("d2", "b", "Y", T + 3600),  # another spotter: stays
        delete("d3", "c", "X", T + PERSONAL_DELETE_SECONDS + 1),  # too late: stays
        delete("d4", "d", None, T + 30 * 86400),  # a moderator's: gone, whenever
    ]  # fmt: skip
    write_spots(str(tmp_path), "free.pt", 1, 9, rows, [])
    assert [r["message_id"] for r in live_spots(str(tmp_path))] == ["b", "c"]


def test_a_spots_newest_nzb_outcome_wins(tmp_path):
    write_spots(str(tmp_path), "free.pt", 1, 1, [spot("a", "X")],
                [{"message_id": "a", "outcome": "waiting", "at": T}])  # fmt: skip
    key = bytes(20)
    linked = {"message_id": "a", "outcome": "linked", "release_key": key, "at": T + 60}
    write_spots(str(tmp_path), "free.pt", 2, 2, [], [linked])
    (only,) = live_spots(str(tmp_path))
    assert only["nzb_outcome"] == "linked" and only["release_key"] == key


def test_a_deleted_spots_own_release_is_hidden_by_a_tombstone(tmp_path):
    import duckdb

    from pipelines.catalog.layout import table_glob
    from pipelines.catalog.versions import newest_sql
    from pipelines.nzbimport.run import Importer
    from pipelines.spots.store import removed_releases

    catalog = str(tmp_path)
    nzb = (b'<nzb><file poster="p" date="1700000000" subject="&quot;a.rar&quot; yEnc (1/1)">'
           b"<groups><group>alt.binaries.x</group></groups><segments>"
           b'<segment number="1" bytes="5">one@x</segment></segments></file></nzb>')  # fmt: skip
    with Importer(catalog, now=T) as importer:
        key = importer.add("spot", "a", nzb).release_key
    assert key is not None
    inserted = {"message_id": "a", "outcome": "inserted", "release_key": key, "at": T}
    write_spots(catalog, "free.pt", 1, 2, [spot("a", "X"), delete("d", "a", "X", T + 60)],
                [inserted])  # fmt: skip
    assert removed_releases(catalog, {"d"}) == [("d", key)]
    with Importer(catalog, now=T) as importer:
        assert importer.withdraw(key, "spot", "d")
    with Importer(catalog, now=T) as importer:
        assert not importer.withdraw(key, "spot", "d")  # once
    shown = newest_sql(f"read_parquet('{table_glob(catalog, 'releases')}', union_by_name=true)")
    assert duckdb.sql(f"SELECT count(*) FROM ({shown})").fetchall() == [(0,)]
    assert live_spots(catalog) == []
