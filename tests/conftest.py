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
        groups=2, articles=12_000, seed=4, range_size=6_000, chunk=2_000, mix="real"
    )
    gen, _ = replayed(tmp / "gen", tmp / "cat", config)
    return gen.out, tmp / "cat"


@pytest.fixture(autouse=True)
def _dagster_state_storage_restored():
    """Each test leaves Dagster's current definitions-state storage as it found it.

    Entering an instance (an evaluation context built over a folder instance enters one
    of its own) sets a context variable that only its `__exit__` resets. A test that
    forgets to leave one leaves a storage whose instance is soon collected, and every
    later `Definitions` of the process fails to load ("Attempted to resolve undefined
    DagsterInstance weakref"): a failure that lands on whichever test runs next. Here it
    lands on the test that left it, and the rest run on.
    """
    import sys

    before = _current_state_storage() if "dagster" in sys.modules else None
    yield
    if "dagster" in sys.modules:
        from dagster._core.storage.defs_state import base

        left = base._current_storage.get()
        if left is not before:
            base._current_storage.set(before)  # the tests after this one still load
            pytest.fail("the test left a Dagster instance entered (use its context with `with`)")


def _current_state_storage():
    from dagster._core.storage.defs_state import base

    return base._current_storage.get()
