"""A live count on one line of stderr, drawn over itself: the long commands' progress
(only on a terminal, and not with `--quiet`)."""

from __future__ import annotations

import sys


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
