"""`providers check` against three serve-nntp providers and two that cannot be used: the
greeting, compression, retention, speed; which share a backbone; the down one and the
one refusing the credentials reported while the others are checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.providers import renumbered
from pipelines.generate import GenerateConfig
from pipelines.nntpserver.ports import free_port
from pipelines.providers.fingerprint import DIFFERENT, SAME_ARTICLES, SAME_NUMBERING
from pipelines.providers.status import providers_status
from tests.corpora import generate
from tests.provider_servers import options, servers

CONFIG = GenerateConfig(groups=1, articles=3_000, seed=4, range_size=2_000, chunk=1_000)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str, str]:
    tmp = tmp_path_factory.mktemp("check")
    gen = generate(tmp / "gen", CONFIG)
    group = gen.priority[0]
    resold = renumbered(gen.corpus, tmp / "resold", offset=700_000)  # same articles
    shorter = renumbered(gen.corpus, tmp / "shorter", offset=0, retention=0.5)
    return gen.corpus, resold, shorter, group


def test_the_check_reports_each_provider_and_the_backbones_they_share(
    corpora: tuple[str, str, str, str], tmp_path: Path
) -> None:
    corpus, resold, shorter, group = corpora
    settings = tmp_path / "providers.toml"
    with servers((corpus, options()), (corpus, options()), (resold, options()),
                 (shorter, options()), (corpus, options(user="u", password="right"))
                 ) as (main, twin, other, short, locked):  # fmt: skip
        down = free_port()
        blocks = [("main", main.port, 'backbone = "x"\n'), ("twin", twin.port, 'backbone = "y"\n'),
                  ("resold", other.port, ""), ("short", short.port, 'backbone = "x"\n'),
                  ("down", down, ""),
                  ("locked", locked.port, 'user = "u"\npassword_env = "CHECK_PASS"\n')]  # fmt: skip
        settings.write_text("".join(
            f'[[provider]]\nname = "{n}"\nhost = "127.0.0.1"\nport = {p}\n'
            f"connect_timeout = 2\n{x}\n"
            for n, p, x in blocks
        ))  # fmt: skip
        env = {**os.environ, "CHECK_PASS": "wrong"}
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", "providers", "check", "--providers", str(settings),
             "--group", group, "--json", "--catalog", str(tmp_path / "cat")],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        text = subprocess.run(
            [sys.executable, "-m", "cli.main", "providers", "check", "--providers", str(settings),
             "--group", group],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr  # two providers cannot be used
    report = json.loads(done.stdout)
    by = {p["name"]: p for p in report["providers"]}
    assert by["down"]["state"] == "down" and "cannot connect" in by["down"]["problem"]
    assert by["locked"]["state"] == "refused" and "authentication" in by["locked"]["problem"]
    ok = [by[n] for n in ("main", "twin", "resold", "short")]
    for p in ok:
        assert p["state"] == "ok" and p["greeting"].startswith("20")
        assert p["compression"] != "plain" and p["overview_lines_per_s"] > 0
        assert p["groups"][0]["carried"] and p["groups"][0]["retention_days"] > 0
    assert by["resold"]["groups"][0]["low"] == by["main"]["groups"][0]["low"] + 700_000
    # the shorter retention: its oldest article is younger
    assert by["short"]["groups"][0]["retention_days"] < by["main"]["groups"][0]["retention_days"]
    relation = {p["other"]: p["relation"] for p in report["fingerprint"]["pairs"]}
    assert relation == {"twin": SAME_NUMBERING, "resold": SAME_ARTICLES, "short": DIFFERENT}
    assert report["fingerprint"]["backbones"] == [
        ["main", "twin", "resold"],
        ["short"],
        ["down"],
        ["locked"],
    ]
    # the text says the same, and the status page's file holds the report
    assert "DOWN: cannot connect" in text.stdout and "REFUSED" in text.stdout
    assert "backbone: main, twin, resold" in text.stdout
    # the settings put twin on another backbone and short on main's: both said
    assert report["mismatches"] == [
        "twin and main: the settings say other backbones, the answers say same numbering",
        "short and main: the settings say the same backbone, the answers say different",
    ]
    assert "check the settings: twin and main" in text.stdout
    stored = providers_status(str(tmp_path / "cat"))["check"]
    assert stored is not None and stored["fingerprint"] == report["fingerprint"]
