"""The spot reader's cost: spots read and verified per second on one connection, and the
CPU per spot (every signature checked, its NZB fetched, inflated and imported).

The generator's spot groups (`pipelines.generate.spots`, no corpus uploads: every spot's
NZB becomes a release of its own) are served by `serve-nntp` in a process of its own, so
the CPU counted here is the reader's. The RSA and XML part alone is timed apart, over the
stored spot headers.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq

from bench.capture import start_server
from pipelines.generate.spots import write_spot_groups
from pipelines.nntp.provider import Provider
from pipelines.spots.article import parse_head
from pipelines.spots.reader import SpotSummary, read_spots
from pipelines.spots.verify import verify_spot

START = 1_600_000_000


@dataclass
class SpotBench:
    spots: int
    run: SpotSummary
    verify_cpu: float  # seconds for every stored spot header's verification

    def text(self) -> str:
        s = self.run
        read = s.spots + sum(s.rejected.values())
        per_spot = s.cpu_seconds / read * 1e3 if read else 0.0
        heads = max(s.heads, 1)
        return (
            f"bench-spots: {read:,} spots ({s.spots:,} valid, {sum(s.rejected.values()):,} "
            f"rejected, {s.deletes} deletes) on one connection in {s.seconds:.2f} s: "
            f"{read / s.seconds:,.0f} spots/s; reader CPU {s.cpu_seconds:.2f} s "
            f"({per_spot:.2f} ms a spot, NZB fetch and import included); "
            f"verify alone {self.verify_cpu / heads * 1e3:.2f} ms a full spot (RSA included); "
            f"NZBs: {dict(s.nzbs)}"
        )


def run_bench(spots: int) -> SpotBench:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = SimpleNamespace(seed=1, spots=spots, codec="zlib")
        write_spot_groups(str(root), [], [], config, START, START + 30 * 86400)
        proc, port = start_server(str(root / "corpus"), 1e9, [])
        try:
            run = read_spots(str(root / "cat"), Provider("127.0.0.1", port), now=START + 90 * 86400)
        finally:
            proc.kill()
            proc.wait()
        verify_cpu = _verify_cpu(root)
    return SpotBench(spots, run, verify_cpu)


def _verify_cpu(root: Path) -> float:
    table = pq.read_table(root / "bodies" / "articles.parquet")
    heads = [(m, h) for m, h in zip(table["message_id"].to_pylist(), table["head"].to_pylist(),
                                    strict=True) if b"X-XML" in h]  # fmt: skip
    started = time.process_time()
    for message_id, head in heads:
        verify_spot(parse_head(head), message_id.encode())
    return time.process_time() - started
