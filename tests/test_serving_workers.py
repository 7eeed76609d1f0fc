"""`usenet-indexer serve --workers 2`: a builder process and two workers on one index."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from bench.synthetic_catalog import write_synthetic_catalog
from tests.servers import free_port

pytestmark = pytest.mark.slow  # starts real server processes


SERVE = [sys.executable, "-m", "cli.main", "serve"]


def _total(base: str) -> int:
    r = httpx.get(f"{base}/api", params={"t": "search", "apikey": "k", "limit": 1}, timeout=30)
    return int(r.text.split('total="')[1].split('"')[0])


def test_workers_serve_and_pick_up_a_landed_range(tmp_path):
    catalog = tmp_path / "cat"
    write_synthetic_catalog(str(catalog), 2_000, groups=1, per_range=1_000, seed=23)
    port = free_port()
    cmd = [*SERVE, "--catalog", str(catalog), "--port", str(port), "--api-key", "k",
           "--workers", "2", "--refresh", "0.5"]  # fmt: skip
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            assert server.poll() is None, (
                server.stderr.read().decode()[-2000:] if server.stderr else ""
            )
            try:
                assert _total(base) == 2_000
                break
            except (httpx.TransportError, IndexError):
                assert time.time() < deadline, "the workers did not come up"
                time.sleep(0.5)
        with tempfile.TemporaryDirectory() as tmp:
            stats = write_synthetic_catalog(
                tmp, 500, groups=1, first_group=5, per_range=500, seed=2
            )
            for path in stats.paths:
                target = catalog / Path(path).relative_to(tmp)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(path, target)
        # Every worker (requests land on either) must see it.
        while sum(_total(base) == 2_500 for _ in range(6)) < 6:
            assert time.time() < deadline, "the landed range never showed on every worker"
            time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("after", [0.05, 0.2])
def test_ctrl_c_while_the_workers_start_stops_everything_quietly(tmp_path, after):
    """Ctrl-C reaches the whole process group; workers still importing printed each a
    KeyboardInterrupt traceback before."""
    catalog = tmp_path / "cat"
    write_synthetic_catalog(str(catalog), 500, groups=1, per_range=500, seed=23)
    port = free_port()
    cmd = [*SERVE, "--catalog", str(catalog), "--port", str(port), "--open",
           "--workers", "2"]  # fmt: skip
    server = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    assert server.stdout is not None
    seen = []
    try:
        for line in server.stdout:
            seen.append(line.decode(errors="replace"))
            if "Started parent process" in seen[-1]:
                break  # the workers are being spawned: they import for seconds
        time.sleep(after)
        os.killpg(server.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        rest, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    output = "".join(seen) + rest.decode(errors="replace")
    assert "Started parent process" in output, output[-2000:]
    assert "Traceback" not in output, output[-3000:]
    assert server.returncode == 0, output[-2000:]
