"""Capture figures: totals, per connection, and the summary's words."""

from __future__ import annotations

import io

from pipelines.capture.progress import Progress


def test_progress_counts_per_connection_and_in_total() -> None:
    out = io.StringIO()
    progress = Progress(["news#0", "news#1"], show=True, out=out)
    progress.plan(300_000)
    progress.chunk(0, 100_000, 70_000, 3_000_000, 3_000_000, 2.0, False)
    progress.chunk(1, 100_000, 80_000, 4_000_000, 4_000_000, 4.0, True)
    progress.count("retries", 2)
    summary = progress.finish("stopped by request")
    assert (summary.chunks, summary.lines, summary.wire_bytes) == (2, 150_000, 7_000_000)
    assert summary.recompressed == 1 and summary.retries == 2
    one, two = summary.connections
    assert one.rate() == 35_000 and one.megabytes_per_second() == 1.5
    assert two.rate() == 20_000 and two.megabytes_per_second() == 1.0
    text = summary.format()
    assert "150,000 lines" in text and "retries 2" in text and "STOPPED: stopped by request" in text
    assert "news#0: 1 chunks, 70,000 lines, 3.0 MB; while busy 35,000 lines/s, 1.50 MB/s" in text
    assert "capture" in out.getvalue()  # the bar was drawn
