"""The article pass over several providers (serve-nntp instances numbering the same
articles differently, each missing different articles, one dropping connections, one
down, one refusing the credentials): the same outcomes as one provider holding every
article."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bench.providers import renumbered
from pipelines.articles.store import open_bodies
from pipelines.generate import GenerateConfig
from pipelines.nntp.errors import AuthError
from pipelines.nntpserver.ports import free_port
from pipelines.probe.fetch import PoolSource, StoreSource
from pipelines.probe.run import probe_catalog
from pipelines.providers.failover import BodyPools
from pipelines.providers.resting import FOREVER, Resting
from tests.corpora import Generated, replayed
from tests.provider_servers import options, provider, servers

IGNORED = ("probed_at", "fetched")
CONFIG = GenerateConfig(groups=1, articles=8_000, seed=11, range_size=4_000, chunk=2_000)


def _outcomes(catalog: Path) -> list[dict[str, object]]:
    rows = [r for p in sorted((catalog / "release_probes").rglob("*.parquet"))
            for r in pq.read_table(p).to_pylist()]  # fmt: skip
    return sorted(({k: v for k, v in r.items() if k not in IGNORED} for r in rows),
                  key=lambda r: r["release_key"])  # type: ignore[arg-type,return-value]  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Generated, Path, Path, str]:
    """The generated corpus, its catalog before any probe, the catalog probed from the
    stored bodies (every article there), and the corpus as another backbone numbers it."""
    tmp = tmp_path_factory.mktemp("failover")
    gen, _ = replayed(tmp / "gen", tmp / "cat", CONFIG)
    by_store = shutil.copytree(tmp / "cat", tmp / "by_store")
    store = open_bodies(str(gen.out))
    assert store is not None
    probe_catalog(str(by_store), StoreSource(store))
    other = renumbered(gen.corpus, tmp / "other", offset=5_000_000)
    return gen, tmp / "cat", by_store, other


def _targets(gen: Generated) -> list[str]:
    store = open_bodies(str(gen.out))
    assert store is not None
    return sorted(store._index)


def test_two_backbones_each_missing_half_give_what_one_holding_all_gives(
    world: tuple[Generated, Path, Path, str], tmp_path: Path
) -> None:
    gen, cat, by_store, other = world
    ids = _targets(gen)
    first_gone, second_gone = frozenset(ids[0::2]), frozenset(ids[1::2])
    catalog = shutil.copytree(cat, tmp_path / "cat")
    only_first = shutil.copytree(cat, tmp_path / "only_first")
    # the first provider also drops every seventh article command
    with servers((gen.corpus, options(first_gone, "adrop=7")),
                 (other, options(second_gone))) as (a, b):  # fmt: skip
        pools = BodyPools([provider(a, "a"), provider(b, "b", priority=1)])
        source = PoolSource(pools)
        summary = probe_catalog(str(catalog), source)
        alone = probe_catalog(str(only_first), PoolSource(BodyPools([provider(a, "a")])))
        pools.close()
    assert not summary.gave_up and summary.transport == 0
    assert _outcomes(catalog) == _outcomes(by_store)
    assert source.served["a"] > 0 and source.served["b"] > 0 and source.failed_over > 0
    assert source.counts.missing == 0
    # the first provider alone misses the articles it took down: other outcomes
    assert alone.fetched > 0 and _outcomes(only_first) != _outcomes(by_store)


def test_a_provider_down_and_one_refusing_credentials_are_rested_the_other_goes_on(
    world: tuple[Generated, Path, Path, str], tmp_path: Path
) -> None:
    gen, cat, by_store, other = world
    catalog = shutil.copytree(cat, tmp_path / "cat")
    rests = []
    with servers((gen.corpus, options(user="u", password="right")),
                 (other, options())) as (locked, b):  # fmt: skip
        down = provider(locked, "down")
        down = type(down)("127.0.0.1", free_port(), name="down", connect_timeout=1.0)
        wrong = provider(locked, "wrong", user="u", password="wrong")
        resting = Resting(after=3, record=rests.append)
        pools = BodyPools([down, wrong, provider(b, "b")], resting)
        source = PoolSource(pools)
        summary = probe_catalog(str(catalog), source)
        pools.close()
    assert not summary.gave_up and summary.transport == 0
    assert _outcomes(catalog) == _outcomes(by_store)
    assert source.served == {"down": 0, "wrong": 0, "b": summary.fetched}
    why = {r.provider: r for r in rests}
    assert set(why) == {"down", "wrong"}
    assert why["wrong"].seconds == FOREVER and "authentication failed" in why["wrong"].reason
    assert "cannot connect" in why["down"].reason and why["down"].seconds < FOREVER


def test_when_every_provider_refuses_the_credentials_the_pass_stops_with_their_error(
    world: tuple[Generated, Path, Path, str], tmp_path: Path
) -> None:
    gen, cat, _, _ = world
    catalog = shutil.copytree(cat, tmp_path / "cat")
    with servers((gen.corpus, options(user="u", password="right"))) as (locked,):
        pools = BodyPools([provider(locked, "wrong", user="u", password="wrong")])
        with pytest.raises(AuthError):
            probe_catalog(str(catalog), PoolSource(pools))
        pools.close()


def test_the_probe_command_reads_the_settings_file(
    world: tuple[Generated, Path, Path, str], tmp_path: Path
) -> None:
    import subprocess
    import sys

    gen, cat, by_store, other = world
    ids = _targets(gen)
    catalog = shutil.copytree(cat, tmp_path / "cat")
    settings = tmp_path / "providers.toml"
    with servers((gen.corpus, options(frozenset(ids[0::2]))),
                 (other, options(frozenset(ids[1::2])))) as (a, b):  # fmt: skip
        settings.write_text(
            f'[[provider]]\nname = "a"\nhost = "127.0.0.1"\nport = {a.port}\nconnections = 2\n'
            f'[[provider]]\nname = "b"\nhost = "127.0.0.1"\nport = {b.port}\nconnections = 1\n'
            'role = "bodies"\n'
        )
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", "probe", "--catalog", str(catalog),
             "--providers", str(settings), "--quiet"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        # the connection limits held: at most each account's connections at once
        assert a.stats.peak <= 2 and b.stats.peak <= 1
    assert done.returncode == 0, done.stderr
    assert "0 transport failures" in done.stdout
    assert _outcomes(catalog) == _outcomes(by_store)
