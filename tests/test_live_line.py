"""`until_stopped`: a long command's work, its live line ended, Ctrl-C said plainly."""

from __future__ import annotations

import pytest

from cli.commands.live_line import LiveLine, until_stopped


def test_the_work_returns_its_summary() -> None:
    assert until_stopped(LiveLine(quiet=True), lambda: "summary", "x: stopped") == "summary"


def test_ctrl_c_says_what_the_next_run_does(capsys: pytest.CaptureFixture[str]) -> None:
    def work() -> str:
        raise KeyboardInterrupt

    assert until_stopped(LiveLine(quiet=True), work, "x: stopped; the next run goes on") is None
    assert capsys.readouterr().err.strip() == "x: stopped; the next run goes on"


def test_other_errors_pass_through() -> None:
    def work() -> str:
        raise FileNotFoundError("gone")

    with pytest.raises(FileNotFoundError):
        until_stopped(LiveLine(quiet=True), work, "x: stopped")
