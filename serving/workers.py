"""Running the server: one uvicorn process, or one index builder and N workers.

`serve` starts one process on a single core. With more, this process builds the search
index (and keeps refreshing it) while uvicorn's supervisor runs worker processes that map
the same segment files and answer requests. What the workers share is set here: their
settings (through the environment), the index folder, the NZB kernels compiled once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from serving.settings import Settings


@dataclass(frozen=True)
class Listen:
    """Where and how uvicorn listens."""

    host: str = "127.0.0.1"
    port: int = 8000
    access_log: bool = False

    def uvicorn_options(self) -> dict[str, Any]:
        # uvloop and httptools (C parsers, dependencies of ours) rather than asyncio's loop
        # and h11: uvicorn's share of a request is several times smaller.
        return {"host": self.host, "port": self.port, "log_level": "info", "loop": "uvloop",
                "http": "httptools", "access_log": self.access_log}  # fmt: skip


def default_workers() -> int:
    """Two processes on two cores or more: Python runs one request at a time per process,
    and measured on the 2-core target two workers serve ~10-15 % more searches a second
    than one. Not more: each worker holds ~300-450 MB of its own (the 1 GB budget fits
    two beside the index builder), and counters and grabs are per worker."""
    return min(2, os.cpu_count() or 1)


def serve(settings: Settings, workers: int, listen: Listen) -> int:
    """Serve until stopped: in this process alone (`workers` <= 1) or with workers."""
    import uvicorn

    from serving.app import create_app

    if workers <= 1:
        uvicorn.run(create_app(settings), **listen.uvicorn_options())
        return 0
    return run_workers(settings, workers, listen)


def preload_kernels() -> None:
    """The NZB kernels compiled into numba's cache once, by a short-lived process (LLVM's
    memory would stay with this one): the workers then load them from the cache."""
    load = "from pipelines.nzb.lookup import load_kernels; load_kernels()"
    # Its own process group: a Ctrl-C reaches only this process, which ends it quietly
    # (subprocess.run kills it), instead of the child printing a KeyboardInterrupt.
    subprocess.run([sys.executable, "-c", load], check=False, process_group=0)


def run_workers(settings: Settings, workers: int, listen: Listen) -> int:
    """One builder (this process) and `workers` workers that follow its segments."""
    import uvicorn

    from serving.app import SETTINGS_ENV
    from serving.index.manager import IndexManager

    preload_kernels()
    index_dir = settings.index_dir or tempfile.mkdtemp(prefix="usenet-indexer-index-")
    builder = IndexManager(settings.catalog, index_dir, in_process=settings.build_in_process)
    report = builder.refresh()
    print(f"serve: index ready ({report.kind}, {report.seconds:.1f} s); starting {workers} workers")
    stop = threading.Event()
    thread = threading.Thread(
        target=builder.run_forever, args=(settings.refresh_seconds, stop), daemon=True
    )
    thread.start()
    worker = settings.model_copy(update={"index_dir": index_dir, "follow_index": True})
    os.environ[SETTINGS_ENV] = worker.model_dump_json()
    try:
        config = uvicorn.Config("serving.app:app_from_env", factory=True, workers=workers,
                                **listen.uvicorn_options())  # fmt: skip
        _supervisor_class()(config, sockets=[config.bind_socket()]).run()
    except KeyboardInterrupt:  # before the supervisor took SIGINT over: stop as it would
        pass
    finally:
        stop.set()
        thread.join(timeout=10)
        builder.close()
        if settings.index_dir is None:
            shutil.rmtree(index_dir, ignore_errors=True)
    return 0


def _supervisor_class() -> type:
    import signal
    from multiprocessing import resource_tracker

    from uvicorn.supervisors import Multiprocess

    class Supervisor(Multiprocess):
        """uvicorn's supervisor, its workers started with SIGINT blocked (a child inherits
        the mask). A Ctrl-C while they were importing made each print a KeyboardInterrupt
        traceback; now only this process takes it (held until the workers are started),
        and stops them with SIGTERM, as it does once they serve."""

        def init_processes(self) -> None:
            # multiprocessing's resource tracker, started by the first spawn when not yet
            # running, unblocks SIGINT once it is started: in the middle of the loop, the
            # later workers then took the Ctrl-C. Started first, it is left alone. (The
            # index build at start-up used to start it, in its worker process; a small
            # build runs in this process now, and a reused index folder builds nothing.)
            resource_tracker.ensure_running()
            held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                super().init_processes()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    return Supervisor
