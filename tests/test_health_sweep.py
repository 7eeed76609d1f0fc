"""The health sweep against serve-nntp: verdicts with articles taken down (--gone), a
provider that stalls or drops connections, the three ways a check gives no verdict, the
cadence and resuming."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.health.cadence import DEFAULT
from pipelines.health.sample import sample
from pipelines.health.store import latest_health, read_health
from pipelines.health.sweep import DONE, POOL_BUSY, TRANSPORT, SweepSettings, health_provider, sweep
from pipelines.nntp.pool import ConnectionPool
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.health_data import World, copy_catalog, health_world, releases_of, run_sweep, verdicts

DAY = 86_400


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return health_world(tmp_path_factory.mktemp("health"))


def served(world: World, gone: frozenset[str] = frozenset(), faults: str = "") -> NNTPServer:
    options = ServerOptions(gone=gone, faults=Faults.parse(faults))
    return NNTPServer(world.corpus, options=options)


def test_every_release_gets_the_verdict_its_missing_articles_make(
    world: World, tmp_path: Path
) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    releases = releases_of(catalog, world.now)
    between = DEFAULT.between(3 * DAY)
    repairable = [r for r in releases.values() if r.recovery > 0 and len(r.message_ids) >= 5]
    unrepairable = [r for r in releases.values() if r.recovery == 0 and len(r.message_ids) >= 5]
    single = [r for r in releases.values() if len(r.message_ids) == 1]
    assert len(repairable) >= 6 and len(unrepairable) >= 2 and len(single) >= 2
    gone: set[str] = set()
    expected = dict.fromkeys(releases, "healthy")
    for r in repairable[:3]:  # one sampled middle segment gone: par2 can rebuild it
        gone.add(sample(r, between)[2])
        expected[r.release_key] = "broken"
    for r in repairable[3:5]:  # every article gone
        gone.update(r.message_ids)
        expected[r.release_key] = "dead"
    for r in repairable[5:6]:  # the first and the last gone: more than par2 covers
        gone.update((r.message_ids[0], r.message_ids[-1]))
        expected[r.release_key] = "dead"
    for r in unrepairable[:2]:  # one gone, nothing to rebuild it with
        gone.add(sample(r, between)[1])
        expected[r.release_key] = "dead"
    for r in single[:2]:
        gone.add(r.message_ids[0])
        expected[r.release_key] = "dead"
    with served(world, frozenset(gone)) as server:
        summary = run_sweep(catalog, server, world.now)
    assert summary.ended == DONE and summary.candidates == len(releases)
    assert verdicts(catalog) == expected
    assert summary.verdicts == {
        v: sum(1 for e in expected.values() if e == v) for v in ("healthy", "broken", "dead")
    }
    rows = {bytes(r["release_key"]): r for r in latest_health(catalog).to_pylist()}
    dead_all = repairable[3]
    assert rows[dead_all.release_key]["missing"] == rows[dead_all.release_key]["segments"]
    assert rows[dead_all.release_key]["segments"] == len(sample(dead_all, between))


def test_a_provider_that_stalls_or_drops_costs_releases_never_the_pass(
    world: World, tmp_path: Path
) -> None:
    # one connection: the server's fault counter meets the STATs in the same order every run
    for faults in ("astall=11", "adrop=11"):
        catalog = copy_catalog(world, tmp_path / faults)
        with served(world, faults=faults) as server:
            summary = run_sweep(catalog, server, world.now, connections=1, stat_timeout=0.3)
        assert summary.ended == DONE, (faults, summary.text())
        assert summary.skipped >= 1, faults
        assert summary.checked + summary.skipped == summary.candidates
        assert len(verdicts(catalog)) == summary.checked  # a skipped release has no row
        with served(world) as server:  # unstamped: the next pass retries them at once
            again = run_sweep(catalog, server, world.now)
        assert again.candidates == summary.skipped and again.checked == summary.skipped


def test_a_run_of_transport_failures_ends_the_pass(world: World, tmp_path: Path) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    with served(world, faults="adrop=1") as server:  # every STAT: the connection dropped
        summary = run_sweep(catalog, server, world.now, connections=2, stat_timeout=0.3)
    assert summary.ended == TRANSPORT
    assert 5 <= summary.skipped <= 6  # the two connections' last failures may overlap
    assert summary.checked == 0 and summary.unchecked == summary.candidates - summary.skipped
    assert read_health(catalog).rows.num_rows == 0


def test_an_answer_resets_the_run_of_transport_failures(world: World, tmp_path: Path) -> None:
    """Single-segment releases on one connection against a server that drops every
    second STAT: failures alternate with answers, so no run reaches two."""
    catalog = copy_catalog(world, tmp_path / "cat")
    keep_single_segment_releases(catalog, world.now)
    with served(world, faults="adrop=2") as server:
        summary = run_sweep(catalog, server, world.now, connections=1, transport_yield=2)
    assert summary.ended == DONE, summary.text()
    assert summary.skipped >= 2 and summary.checked >= 2
    assert summary.checked + summary.skipped == summary.candidates


def test_a_pool_with_nothing_to_lend_ends_the_pass_at_once(world: World, tmp_path: Path) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    with served(world) as server:
        pool = ConnectionPool(health_provider(Provider("127.0.0.1", server.port, connections=2), 1))
        held = [pool.acquire(), pool.acquire()]  # another pass holds every connection
        try:
            summary = sweep(catalog, pool, SweepSettings(lease_wait=0.05), now=world.now)
        finally:
            for client in held:
                pool.release(client)
            pool.close()
    assert summary.ended == POOL_BUSY
    assert summary.checked == summary.skipped == summary.stamped == 0
    assert summary.unchecked == summary.candidates > 0
    assert read_health(catalog).rows.num_rows == 0


def test_an_unusable_answer_stamps_the_release_until_its_recheck(
    world: World, tmp_path: Path
) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    with served(world, faults="agarble=1") as server:
        first = run_sweep(catalog, server, world.now)
        assert first.ended == DONE and first.checked == 0
        assert first.stamped == first.candidates > 0
        assert set(verdicts(catalog).values()) == {None}
        again = run_sweep(catalog, server, world.now + 3600)
        assert again.candidates == 0  # stamped: not leading the next batch
    with served(world) as server:
        later = run_sweep(catalog, server, world.now + DAY)
    assert later.candidates == first.candidates and later.stamped == 0
    assert None not in set(verdicts(catalog).values())


def test_the_cadence_rechecks_young_releases_daily_and_old_ones_rarely(
    world: World, tmp_path: Path
) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    total = len(releases_of(catalog, world.now))
    with served(world) as server:
        assert run_sweep(catalog, server, world.now).checked == total
        assert run_sweep(catalog, server, world.now + DAY - 60).candidates == 0
        assert run_sweep(catalog, server, world.now + DAY).checked == total
        # checked when a year old: not again for 90 days
        old = world.now + 400 * DAY
        assert run_sweep(catalog, server, old).checked == total
        assert run_sweep(catalog, server, old + 89 * DAY).candidates == 0
        assert run_sweep(catalog, server, old + 90 * DAY).checked == total
    assert len(read_health(catalog).rows) == 4 * total


def test_releases_younger_than_the_guard_wait(world: World, tmp_path: Path) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    newest = world.now - 3 * DAY
    soon = newest + 3600  # the newest releases are an hour old
    young = [r for r in releases_of(catalog, world.now).values() if soon - r.posted_last < 7200]
    assert young
    with served(world) as server:
        summary = run_sweep(catalog, server, soon)
    checked = set(verdicts(catalog))
    assert summary.checked == len(checked) > 0
    assert not checked & {r.release_key for r in young}


def test_a_stopped_sweep_goes_on_where_it_stopped(world: World, tmp_path: Path) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    total = len(releases_of(catalog, world.now))
    with served(world) as server:
        first = run_sweep(catalog, server, world.now, limit=25, batch_size=10)
        done = set(verdicts(catalog))
        assert first.checked == len(done) == 25 and first.batches == 3
        rest = run_sweep(catalog, server, world.now)
        assert rest.candidates == total - 25
        assert run_sweep(catalog, server, world.now).candidates == 0
    rows = read_health(catalog).rows
    assert rows.num_rows == total  # every release checked once
    assert done <= set(verdicts(catalog))


def test_never_checked_releases_lead_newest_first(world: World, tmp_path: Path) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    releases = releases_of(catalog, world.now)
    with served(world) as server:
        run_sweep(catalog, server, world.now, limit=5, connections=1)
        # a day later the five are due again, but the never-checked go first
        run_sweep(catalog, server, world.now + DAY, limit=5, connections=1)
    by_age = sorted(releases.values(), key=lambda r: (-r.posted_last, r.release_key))
    assert set(verdicts(catalog)) == {r.release_key for r in by_age[:10]}


def keep_single_segment_releases(catalog: str, now: int) -> None:
    """Tombstone every release of more than one segment (a newer finished version with
    `merged_into` set), so that the catalog's current releases are single-segment ones."""
    import pyarrow.parquet as pq

    from tests.catalogs import write_named_releases

    releases = releases_of(catalog, now)
    drop = [k for k, r in releases.items() if len(r.message_ids) != 1]
    rows = []
    for part in sorted(Path(catalog, "releases").rglob("*.parquet")):
        rows += pq.read_table(part).to_pylist()
    newest = {}
    for row in rows:
        newest[bytes(row["release_key"])] = row
    tomb = []
    for key in drop:
        row = dict(newest[key])
        row.update(finished=True, written_range=1 << 40, merged_into=key)
        tomb.append(row)
    write_named_releases(catalog, tomb[0]["group"], 0, 1, tomb)


def test_a_server_that_is_down_ends_the_pass_after_a_run_of_failed_connects(
    world: World, tmp_path: Path
) -> None:
    catalog = copy_catalog(world, tmp_path / "cat")
    with served(world) as server:
        port = server.port
    pool = ConnectionPool(health_provider(Provider("127.0.0.1", port, connections=2), 1))
    try:  # nothing listens on the port any more: every connect is refused
        summary = sweep(catalog, pool, SweepSettings(), now=world.now)
    finally:
        pool.close()
    assert summary.ended == TRANSPORT and 5 <= summary.skipped <= 6
    assert summary.skipped + summary.unchecked == summary.candidates


def test_refused_credentials_stop_the_sweep_with_their_error(world: World, tmp_path: Path) -> None:
    from pipelines.nntp.errors import AuthError

    catalog = copy_catalog(world, tmp_path / "cat")
    locked = NNTPServer(world.corpus, options=ServerOptions(user="u", password="p"))
    with locked as server, pytest.raises(AuthError):
        run_sweep(catalog, server, world.now)  # no credentials: 480 to every STAT
    assert read_health(catalog).rows.num_rows == 0


def test_segments_read_from_the_partitions_a_batch_spans_are_the_whole_tables(
    world: World,
) -> None:
    from dataclasses import replace

    from pipelines.catalog.views import CatalogViews
    from pipelines.health.candidates import due_candidates, segments_of

    views = CatalogViews(str(world.catalog))
    try:
        batch = due_candidates(views, latest_health(str(world.catalog)), world.now, DEFAULT)
        pruned = segments_of(views, batch)
        unknown = segments_of(views, [replace(c, first_article=None) for c in batch])
        elsewhere = segments_of(views, [replace(c, first_article=-2, last_article=-1)
                                        for c in batch])  # fmt: skip
    finally:
        views.close()
    assert pruned == unknown == elsewhere
    assert sum(len(r.message_ids) for r in pruned.values()) > len(pruned)
