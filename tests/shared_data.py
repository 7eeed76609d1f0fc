"""Where the real third-party test data is: `../shared/data` beside the project.

A checkout elsewhere (a worktree, a copy) names the folder in USENET_INDEXER_SHARED_DATA.
Tests that read it skip with `needs_data` when it is absent (a user's fresh clone).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(
    os.environ.get("USENET_INDEXER_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
)


def needs_data(*parts: str) -> pytest.MarkDecorator:
    """Skip unless DATA/<parts> is a folder."""
    where = DATA.joinpath(*parts)
    return pytest.mark.skipif(not where.is_dir(), reason=f"{where} is absent")
