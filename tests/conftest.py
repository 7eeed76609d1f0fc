"""Hypothesis profiles: under CI=true the property tests are derandomized.

A property test draws new examples on every run, so a CI run could fail on an example no
earlier run drew: its answer would depend on chance, not on the code. The "ci" profile
draws the same examples every run (seeded by each test), keeps no example database (a
checkout's saved failures do not change what runs), does not fail a test for being slow
on a loaded machine, and prints the blob that reproduces a failure. A test's own
@settings keep all this (none of them sets derandomize or the database). Recent
Hypothesis versions load a profile like it by themselves in CI; this one holds for every
version the dev extra allows.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
if os.environ.get("CI", "").lower() in ("1", "true"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def real_mix(tmp_path_factory):
    """A small corpus of the generator's real mix, replayed: (its folder, the catalog).
    Read only: the tests that score it share one build."""
    from pipelines.generate import GenerateConfig
    from tests.corpora import replayed

    tmp: Path = tmp_path_factory.mktemp("real_mix")
    config = GenerateConfig(
        groups=2, articles=8_000, seed=4, range_size=6_000, chunk=2_000, mix="real"
    )
    gen, _ = replayed(tmp / "gen", tmp / "cat", config)
    return gen.out, tmp / "cat"
