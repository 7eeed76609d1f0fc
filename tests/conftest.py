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
