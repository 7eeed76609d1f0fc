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
