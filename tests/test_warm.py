"""The kernels compiled apart: children under a memory cap, restarted while they cache
kernels, a marker once one got through (`pipelines.index.warm`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pipelines.index import warm

CAP_MB = 200  # far above a child's imports, far below what _grow takes


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WARM_TEST_DIR", str(tmp_path))
    monkeypatch.setattr(warm, "marker", lambda: tmp_path / "header-pass-warm")
    return tmp_path


def _runs(cache: Path) -> int:
    return int((cache / "runs").read_text())


def test_children_restart_while_they_cache_kernels(cache: Path) -> None:
    out = io.StringIO()
    ran = warm.compile_apart(out, "tests.fixtures.warm_targets:caches_then_passes", CAP_MB)
    assert ran
    assert _runs(cache) == 3
    assert (cache / "header-pass-warm").exists()
    assert "(3 processes)" in out.getvalue()


def test_marker_skips_the_children(cache: Path) -> None:
    (cache / "header-pass-warm").write_text("done\n")
    assert not warm.compile_apart(None, "tests.fixtures.warm_targets:fails", CAP_MB)
    assert not (cache / "runs").exists()


def test_a_child_that_caches_nothing_stops_the_loop(cache: Path) -> None:
    out = io.StringIO()
    assert warm.compile_apart(out, "tests.fixtures.warm_targets:never_caches", CAP_MB)
    assert _runs(cache) == 1
    assert not (cache / "header-pass-warm").exists()
    assert f"exit {warm.AGAIN}" in out.getvalue()


def test_a_failing_warm_up_is_left_to_the_pass(cache: Path) -> None:
    out = io.StringIO()
    assert warm.compile_apart(out, "tests.fixtures.warm_targets:fails", CAP_MB)
    assert _runs(cache) == 1
    assert not (cache / "header-pass-warm").exists()
    assert "the pass compiles them" in out.getvalue()


def test_the_real_marker_lives_with_the_compiled_kernels() -> None:
    from numba.core import config

    assert warm.marker().parent == Path(config.CACHE_DIR)  # type: ignore[attr-defined]


def test_another_checkout_of_the_same_sources_warms_up_again(monkeypatch) -> None:
    """numba files cached kernels under their sources' full path: a fresh clone beside this
    one finds none of this checkout's kernels, so its marker is its own."""
    import kernels._jit

    here = warm.marker()
    monkeypatch.setattr(kernels._jit, "__file__", "/elsewhere/clone/kernels/_jit.py")
    there = warm.marker()
    assert there.parent == here.parent and there != here
