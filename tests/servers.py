"""Starting and stopping the real servers the tests talk to, and headless Chromium.

A free loopback port, a wait until a server answers, starting a server in a session of
its own and stopping that whole process group by its id (SIGTERM, then SIGKILL), and
Chromium's flags and page dump: shared by tests/integration, tests/browser and the
serving tests that start processes.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from pipelines.nntpserver.ports import free_port

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# headless, nothing the test did not ask for: no sandbox (root in CI), GPU, QUIC, first-run
# pages, background traffic, component updates or sync
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def wait_until(up: Callable[[], bool], what: str, seconds: float, every: float = 0.2) -> None:
    """Ask `up()` until it is true; an OSError counts as not yet. TimeoutError after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if up():
                return
        except OSError:
            pass
        time.sleep(every)
    raise TimeoutError(f"{what} did not answer in {seconds} s")


def serve_app(app: Any) -> Iterator[str]:
    """The ASGI `app` served by uvicorn in a thread of this process (as `serve` runs
    it); yields its base URL, stops it when resumed. A fixture's `yield from`."""
    import threading

    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, "the web server", seconds=60, every=0.1)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def start(cmd: Sequence[str], log: IO[bytes] | int, **popen: Any) -> subprocess.Popen[bytes]:
    """Start `cmd` in a session of its own, so that stop_group stops it and its children;
    its output and errors go to `log` (a file open for writing, or subprocess.DEVNULL)."""
    return subprocess.Popen(
        cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, **popen
    )


def stop_group(proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """Stop a process `start` started and all its children, by its group id: SIGTERM,
    and SIGKILL if it has not exited after `seconds`."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def chromium_dom(url: str, profile: Path | str, *flags: str, timeout: float = 120) -> str:
    """The page at `url` as headless Chromium renders it (`--dump-dom`)."""
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *flags, "--dump-dom", url],
        capture_output=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout.decode("utf-8", "replace")
