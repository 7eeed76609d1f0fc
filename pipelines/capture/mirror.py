"""Capture a corpus through NNTP: serve-nntp in front of it, the capture behind it.

The demo's way to exercise the whole capture path without a provider: a generated
corpus is served on a loopback port and captured into another root, line for line.
"""

from __future__ import annotations

from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.progress import CaptureSummary, Progress
from pipelines.corpus.reader import CorpusReader
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer, ServerOptions


def mirror_corpus(
    source: str,
    target: str,
    connections: int = 4,
    compression: str = "auto",
    range_size: int = 2_000_000,
    chunk_size: int = 100_000,
    options: ServerOptions | None = None,
    show_progress: bool = False,
) -> CaptureSummary:
    """Serve `source` on 127.0.0.1 and capture every group of it into `target`.

    The headroom is 0: a stored corpus has no articles still waiting for their overview.
    Use the source's range and chunk sizes to have the same chunk files on both sides.
    """
    groups = CorpusReader(source).groups()
    if not groups:
        raise ValueError(f"no group in the corpus at {source}")
    with NNTPServer(source, options=options) as server:
        provider = Provider("127.0.0.1", server.port, connections=connections,
                            compression=compression, name="serve-nntp")  # fmt: skip
        pools = ProviderPools([provider])
        labels = [f"serve-nntp#{i}" for i in range(connections)]
        settings = CaptureSettings(plan=PlanSettings(range_size, chunk_size, headroom=0))
        capture = Capture(pools, target, groups, settings, Progress(labels, show_progress))
        return capture.run()
