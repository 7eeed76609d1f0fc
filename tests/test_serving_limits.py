"""Daily key limits: one set of counts however many worker processes serve."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

from serving.limits import KeyLimits


def _worker(path: str, n: int, out: mp.Queue) -> None:  # type: ignore[type-arg]
    limits = KeyLimits(["k1", "k2"], False, daily_requests=150, daily_downloads=0, shared=path)
    allowed = sum(limits.count_request("k1") for _ in range(n))
    limits.close()
    out.put(allowed)


def test_workers_share_one_daily_limit(tmp_path: Path) -> None:
    path = str(tmp_path / "counters.bin")
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    workers = [ctx.Process(target=_worker, args=(path, 100, out)) for _ in range(3)]
    for w in workers:
        w.start()
    allowed = [out.get(timeout=60) for _ in workers]
    for w in workers:
        w.join(timeout=60)
    assert sum(allowed) == 150  # 300 asked across 3 processes, the limit once
    limits = KeyLimits(["k1", "k2"], False, 150, 0, shared=path)
    assert limits.usage("k1") == (150, 0)
    assert limits.usage("k2") == (0, 0)
    limits.close()


def test_counts_start_afresh_each_utc_day(tmp_path: Path) -> None:
    now = [86_400 * 20_000 + 5.0]
    limits = KeyLimits(["k"], False, 2, 1, shared=str(tmp_path / "c.bin"), clock=lambda: now[0])
    assert [limits.count_request("k") for _ in range(3)] == [True, True, False]
    assert limits.count_download("k", b"r") and not limits.count_download("k", b"r")
    now[0] += 86_400
    assert limits.count_request("k") and limits.count_download("k", b"r")
    assert limits.usage("k") == (1, 1)
    limits.close()


def test_without_a_key_of_ours_each_address_is_counted_apart(tmp_path: Path) -> None:
    # an open API: no key, or any key, is anonymous; one address's day is not another's
    for shared in (str(tmp_path / "c.bin"), None):
        limits = KeyLimits(["k"], True, 5, 0, shared=shared, anonymous_requests=1)
        assert limits.count_request(None, "10.0.0.1")
        assert not limits.count_request("someone", "10.0.0.1")  # a made-up key is no way out
        assert limits.count_request(None, "10.0.0.2") and limits.count_request("x", "10.0.0.3")
        assert limits.usage(None, "10.0.0.1") == (1, 0)
        assert sum(limits.count_request("k", "10.0.0.1") for _ in range(9)) == 5  # the key's
        limits.close()


def test_anonymous_use_is_unlimited_by_default(tmp_path: Path) -> None:
    limits = KeyLimits([], True, 3, 3, shared=str(tmp_path / "c.bin"))
    assert all(limits.count_request(None, "10.0.0.1") for _ in range(50))
    assert all(limits.count_download(None, b"r", "10.0.0.1") for _ in range(50))
    assert limits.usage(None, "10.0.0.1") == (50, 50)  # still counted, never refused
    limits.close()


def test_a_file_for_other_keys_is_started_afresh(tmp_path: Path) -> None:
    path = str(tmp_path / "c.bin")
    a = KeyLimits(["a"], False, 5, 0, shared=path)
    a.count_request("a")
    a.close()
    b = KeyLimits(["a", "b"], False, 5, 0, shared=path)
    assert b.usage("a") == (0, 0)
    b.close()
