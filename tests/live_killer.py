"""Run a `usenet-indexer` command that SIGKILLs itself at a chosen point of a stage.

`python -m tests.live_killer MODULE:NAME N live ...` replaces the function (or the name
bound in MODULE, as `from x import f` binds it) with one that, on its N-th call, calls it
and then sends the process SIGKILL: the process dies there, as a kill from outside at that
moment would leave it (nothing after the write runs, no buffer flushed, no lock
released). tests/test_live_kill.py kills `live` mid-probe, mid-merge, mid-health and
mid-judge this way: polling the catalog from outside cannot land between two writes a
millisecond apart.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import Any


def arm(target: str, nth: int) -> None:
    module_name, _, name = target.partition(":")
    module = importlib.import_module(module_name)
    original = getattr(module, name)
    calls = [0]

    def killing(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        calls[0] += 1
        if calls[0] == nth:
            os.kill(os.getpid(), signal.SIGKILL)
        return out

    setattr(module, name, killing)


if __name__ == "__main__":
    arm(sys.argv[1], int(sys.argv[2]))
    from cli.main import main

    sys.exit(main(sys.argv[3:]))
