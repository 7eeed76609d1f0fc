"""The health sweep over several providers: each sampled segment STATted on every provider,
availability kept per provider, a release healthy when some provider serves all of it; a
provider that drops connections, one that is down and one refusing the credentials cost
nothing while another serves the release."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.providers import renumbered
from pipelines.health.cadence import DEFAULT
from pipelines.health.sample import sample
from pipelines.health.store import latest_health
from pipelines.health.sweep import DONE, SweepSettings, health_provider, sweep
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.ports import free_port
from pipelines.providers.failover import BodyPools
from pipelines.providers.resting import Resting
from pipelines.providers.status import providers_status
from tests.health_data import World, copy_catalog, health_world, releases_of, verdicts
from tests.provider_servers import options, provider, servers

DAY = 86_400


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[World, str]:
    tmp = tmp_path_factory.mktemp("health")
    w = health_world(tmp)
    # another backbone: other numbers, and only the newer 70% of the articles
    return w, renumbered(w.corpus, tmp / "other", offset=3_000_000, retention=0.7)


def _pools(providers: list[Provider], resting: Resting | None = None) -> BodyPools:
    return BodyPools([health_provider(p, 10.0) for p in providers], resting)


def test_healthy_when_some_provider_serves_all_of_it(
    world: tuple[World, str], tmp_path: Path
) -> None:
    w, other = world
    catalog = copy_catalog(w, tmp_path / "cat")
    releases = list(releases_of(catalog, w.now).values())
    between = DEFAULT.between(3 * DAY)
    many = [r for r in releases if len(r.message_ids) >= 5]
    taken_first = many[:4]  # gone on the first provider only
    taken_both = many[4:6]  # gone on both
    gone_first = {m for r in taken_first + taken_both for m in sample(r, between)}
    gone_second = {m for r in taken_both for m in sample(r, between)}
    with servers((w.corpus, options(frozenset(gone_first), "adrop=50")),
                 (other, options(frozenset(gone_second)))) as (a, b):  # fmt: skip
        pools = _pools([provider(a, "first", connections=3), provider(b, "second")])
        summary = sweep(catalog, pools, SweepSettings(), now=w.now)
        first_pass = summary
        for _ in range(4):  # what a dropped connection left unanswered: the next passes
            if not summary.skipped:
                break
            summary = sweep(catalog, pools, SweepSettings(), now=w.now)
        pools.close()
    assert summary.ended == DONE and summary.skipped == 0
    found = verdicts(catalog)
    rows = {bytes(r["release_key"]): r for r in latest_health(catalog).to_pylist()}
    for r in taken_first:
        assert found[r.release_key] == "healthy"
        row = rows[r.release_key]
        by = dict(zip(row["providers"], row["provider_missing"], strict=True))
        assert by["second"] == 0  # (the first's answer is there unless a drop cost it)
        assert by.get("first", len(sample(r, between))) == len(sample(r, between))
    for r in taken_both:
        assert found[r.release_key] == "dead"
    # the second provider's shorter retention: its oldest releases are served by the first
    # alone, and healthy all the same
    by_provider = [dict(zip(r["providers"], r["provider_missing"], strict=True))
                   for r in rows.values() if r["verdict"] == "healthy"]  # fmt: skip
    served_first_only = [b for b in by_provider if b.get("first") == 0 and b["second"] > 0]
    assert served_first_only
    assert first_pass.served["first"] > 0 and first_pass.served["second"] > 0
    assert first_pass.checked + first_pass.skipped == len(releases)
    assert first_pass.skipped < len(releases) // 4  # a dropped STAT costs at most its release
    assert len(found) == len(releases)


def test_a_provider_down_and_one_refusing_credentials_leave_the_others_verdicts(
    world: tuple[World, str], tmp_path: Path
) -> None:
    w, _ = world
    catalog = copy_catalog(w, tmp_path / "cat")
    releases = releases_of(catalog, w.now)
    rests = []
    with servers((w.corpus, options(user="u", password="right")),
                 (w.corpus, options())) as (locked, full):  # fmt: skip
        down = Provider("127.0.0.1", free_port(), name="down", connect_timeout=1.0)
        wrong = provider(locked, "wrong", user="u", password="nope")
        pools = _pools([down, wrong, provider(full, "full")], Resting(after=2, record=rests.append))
        summary = sweep(catalog, pools, SweepSettings(transport_yield=50), now=w.now)
        pools.close()
    assert summary.ended == DONE
    assert set(verdicts(catalog).values()) == {"healthy"}
    assert summary.checked == len(releases)
    assert {r.provider for r in rests} == {"down", "wrong"}


def test_the_health_command_reads_the_settings_file(
    world: tuple[World, str], tmp_path: Path
) -> None:
    import os
    import subprocess
    import sys

    w, other = world
    catalog = copy_catalog(w, tmp_path / "cat")
    releases = releases_of(catalog, w.now)
    settings = tmp_path / "providers.toml"
    with servers((w.corpus, options(user="u", password="right")),
                 (other, options())) as (locked, b):  # fmt: skip
        settings.write_text(
            f'[[provider]]\nname = "locked"\nhost = "127.0.0.1"\nport = {locked.port}\n'
            'user = "u"\npassword_env = "LOCKED_PASS"\nconnections = 2\n'
            f'[[provider]]\nname = "b"\nhost = "127.0.0.1"\nport = {b.port}\nconnections = 2\n'
        )
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", "health", "--catalog", catalog, "--providers",
             str(settings), "--quiet"],
            capture_output=True, text=True, timeout=300,
            env={**os.environ, "LOCKED_PASS": "wrong"},
        )  # fmt: skip
        assert locked.stats.peak <= 2 and b.stats.peak <= 2
    assert done.returncode == 0, done.stderr
    found = verdicts(catalog)
    assert len(found) == len(releases)
    # the second provider's retention is shorter: its oldest releases are dead there, but
    # the first refused the credentials: what the second serves whole is healthy, the rest
    # dead; the refusal is in the catalog for the status page
    assert "healthy" in set(found.values())
    rests = providers_status(catalog)["rests"]
    assert [r["provider"] for r in rests] == ["locked"] and rests[0]["seconds"] is None


def test_a_provider_whose_retention_ends_before_a_release_is_not_asked_for_it(
    world: tuple[World, str], tmp_path: Path
) -> None:
    from pipelines.corpus.reader import CorpusReader
    from pipelines.providers.report import check_all
    from pipelines.providers.status import oldest_articles, write_check

    w, other = world
    catalog = copy_catalog(w, tmp_path / "cat")
    group = CorpusReader(w.corpus).groups()[0]
    with servers((w.corpus, options()), (other, options())) as (a, b):
        providers = [provider(a, "first"), provider(b, "second")]
        write_check(catalog, check_all(providers, [group]))
        oldest = oldest_articles(catalog)[("second", group)]
        pools = _pools(providers)
        summary = sweep(catalog, pools, SweepSettings(), now=w.now)
        pools.close()
    assert summary.ended == DONE and summary.skipped == 0
    rows = latest_health(catalog).to_pylist()
    beyond = [r for r in rows if r["posted_last"] < oldest]
    within = [r for r in rows if r["posted_last"] >= oldest]
    assert beyond and within
    assert all(r["providers"] == ["first"] for r in beyond)  # the second not asked
    assert all(r["providers"] == ["first", "second"] for r in within)
    assert {r["verdict"] for r in rows} == {"healthy"}
