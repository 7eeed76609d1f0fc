"""A live count on one line of stderr, drawn over itself: the long commands' progress
(only on a terminal, and not with `--quiet`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class LiveLine:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet or not sys.stderr.isatty()
        self.shown = False

    def show(self, text: str) -> None:
        if not self.quiet:
            print(f"\r{text}", end="", file=sys.stderr)
            self.shown = True

    def close(self) -> None:
        """End the line, so the summary starts on its own."""
        if self.shown:
            print(file=sys.stderr)


def until_stopped(line: LiveLine, work: Callable[[], T], stopped: str) -> T | None:
    """A long command's work with its live line: what it returns, or None when Ctrl-C
    stopped it (`stopped` said on stderr: what the next run does). The line is ended
    either way, so the summary or the error starts on its own."""
    try:
        return work()
    except KeyboardInterrupt:
        print(f"\n{stopped}", file=sys.stderr)
        return None
    finally:
        line.close()
