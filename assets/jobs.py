"""Jobs: named selections of assets (and the capture ops) that sensors and operators launch.

`index_job` runs the header pass for the partitions it is given (the index sensor asks
for one range at a time per group; the UI can launch any set, which runs as one step
that keeps each group's article order). `tail_job` and `history_job` run one capture
pass each (assets/capture.py), in the run's own process: capture is threads waiting on
sockets, a step process of its own would only cost its start. Every job's runs carry
their kind and queue priority (assets/tags.py).
"""

from __future__ import annotations

import dagster as dg

from assets.capture import capture_history, capture_tail, index_tails
from assets.tags import HISTORY, INDEX, MAINTENANCE, TAIL, job_tags

index_job = dg.define_asset_job(
    "index_job",
    selection=dg.AssetSelection.groups("header_pass"),
    description="Index (group, range) partitions with the header pass.",
    tags=job_tags(INDEX),
)

compact_job = dg.define_asset_job(
    "compact_job",
    selection=dg.AssetSelection.assets("compacted"),
    description="Compact a group's catalog files.",
    tags=job_tags(MAINTENANCE),
)

catalog_job = dg.define_asset_job(
    "catalog_job",
    selection=dg.AssetSelection.assets("catalog_views"),
    description="Refresh the catalog views the server answers from.",
    tags=job_tags(MAINTENANCE),
)


@dg.job(
    description="One tail pass: every configured group's new articles, from its tail mark up, "
    "then what it stored of each growing range indexed (the tail's releases searchable now).",
    tags=job_tags(TAIL),
    executor_def=dg.in_process_executor,
)
def tail_job() -> None:
    index_tails(capture_tail())


@dg.job(
    description="One history pass: below each group's tail mark, as far ahead of the index "
    "as the prefetch limits allow.",
    tags=job_tags(HISTORY),
    executor_def=dg.in_process_executor,
)
def history_job() -> None:
    capture_history()
