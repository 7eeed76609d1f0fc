"""The wrong-key buckets: one per client address, shared by the worker processes."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from serving import wrong_keys
from serving.wrong_keys import WrongKeys


def _guesser(path: str, client: str, n: int, out: mp.Queue) -> None:  # type: ignore[type-arg]
    keys = WrongKeys(10, 0.001, shared=path)  # no refill to speak of while the test runs
    heard = 0
    for i in range(n):
        if not keys.wait(client):
            keys.wrong(client, "/api", f"g{i}")
            heard += 1
    keys.close()
    out.put(heard)


def test_workers_share_one_bucket_an_address(tmp_path: Path) -> None:
    path = str(tmp_path / "wrong-keys.bin")
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    workers = [ctx.Process(target=_guesser, args=(path, "203.0.113.9", 50, out))
               for _ in range(3)]  # fmt: skip
    for w in workers:
        w.start()
    heard = [out.get(timeout=60) for _ in workers]
    for w in workers:
        w.join(timeout=60)
    assert sum(heard) == 10  # 150 guesses across 3 processes: the burst once
    keys = WrongKeys(10, 0.001, shared=path)
    assert keys.is_slowed("203.0.113.9") and not keys.is_slowed("198.51.100.7")
    keys.close()


@pytest.mark.parametrize("in_file", [True, False])
def test_a_slowed_address_waits_for_its_bucket_to_fill_again(tmp_path: Path, in_file) -> None:
    now = [1_000.0]
    shared = str(tmp_path / "w.bin") if in_file else None
    keys = WrongKeys(2, 6.0, clock=lambda: now[0], shared=shared)  # a token in 10 s
    keys.wrong("a", "/api", "x")
    assert keys.wait("a") == 0
    keys.wrong("a", "/api", "y")
    assert keys.wait("a") == 10.0 and keys.slowed_now() == ["a"]
    now[0] += 4
    assert keys.wait("a") == pytest.approx(6.0)
    now[0] -= 100  # a clock stepped back refills nothing, empties nothing
    assert keys.wait("a") == pytest.approx(6.0)
    now[0] += 106
    assert keys.wait("a") == 0 and not keys.is_slowed("a")
    assert keys.wrong_total == 2 and keys.slowed_total == 3
    keys.close()


def test_a_full_table_gives_the_quietest_slot_to_a_new_address(tmp_path, monkeypatch):
    monkeypatch.setattr(wrong_keys, "SLOTS", 4)
    monkeypatch.setattr(wrong_keys, "PROBES", 4)
    now = [0.0]
    keys = WrongKeys(1, 0.001, clock=lambda: now[0], shared=str(tmp_path / "w.bin"))
    for i in range(4):
        now[0] += 1
        keys.wrong(f"10.0.0.{i}", "/api", "x")
    now[0] += 1  # each seen last when its wrong key came: 10.0.0.0 the longest ago
    keys.wrong("10.0.0.9", "/api", "x")
    assert keys.is_slowed("10.0.0.9")
    assert not keys.is_slowed("10.0.0.0")  # the quietest, forgotten
    assert all(keys.is_slowed(f"10.0.0.{i}") for i in (1, 2, 3))
    keys.close()


def test_a_file_of_another_layout_is_started_afresh(tmp_path: Path) -> None:
    path = tmp_path / "w.bin"
    path.write_bytes(b"\xff" * 100)
    keys = WrongKeys(1, 1.0, shared=str(path))
    assert not keys.is_slowed("a") and path.stat().st_size == wrong_keys.SLOTS * 5 * 8
    keys.close()
