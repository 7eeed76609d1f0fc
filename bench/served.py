"""What several benches set up alike: a generated corpus indexed into a catalog, and a
`serve-nntp` over a corpus in a process group of its own (stopped as Ctrl-C stops it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.nntpserver.ports import free_port, wait_port


def group_priority(out: Path) -> tuple[str, ...]:
    """The generated groups, the first in priority first (generate.json)."""
    meta = json.loads((out / "generate.json").read_text())
    return tuple(g["name"] for g in sorted(meta["groups"], key=lambda g: g["priority"]))


def indexed_corpus(out: Path, catalog: str, config: GenerateConfig, say: Any = None) -> str:
    """Generate into `out` and index every range into `catalog` under the rules the
    groups' priority makes (`say`: a stream told what is being done); the corpus."""
    from pipelines.index.replay import replay
    from pipelines.index.rules import Rules

    if say is not None:
        print(f"generating {config.articles:,} articles a group ...", file=say, flush=True)
    generate_corpus(str(out), config, progress=False)
    if say is not None:
        print("indexing ...", file=say, flush=True)
    replay(str(out / "corpus"), catalog, Rules(groups=group_priority(out)), progress=False)
    return str(out / "corpus")


@contextmanager
def serve_nntp(corpus: str, *options: str, wait: float = 120.0) -> Iterator[int]:
    """`serve-nntp` over the corpus with these options on a free port, its port while
    the block runs; stopped (SIGINT to its group, then killed) when it ends."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve-nntp", corpus, "--port", str(port), *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0,
    )  # fmt: skip
    try:
        wait_port(port, wait)
        yield port
    finally:
        stop(server)


def stop(proc: subprocess.Popen[Any], seconds: float = 30.0) -> None:
    """Stop a process started in its own group as Ctrl-C would, then kill it."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
