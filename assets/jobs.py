"""Jobs: named selections of assets that sensors and operators launch.

`index_job` runs the header pass for the partitions it is given (the index sensor asks
for one range at a time per group; the UI can launch any set, which runs as one step
that keeps each group's article order).
"""

from __future__ import annotations

import dagster as dg

index_job = dg.define_asset_job(
    "index_job",
    selection=dg.AssetSelection.groups("header_pass"),
    description="Index (group, range) partitions with the header pass.",
)

compact_job = dg.define_asset_job(
    "compact_job",
    selection=dg.AssetSelection.assets("compacted"),
    description="Compact a group's catalog files.",
)

catalog_job = dg.define_asset_job(
    "catalog_job",
    selection=dg.AssetSelection.assets("catalog_views"),
    description="Refresh the catalog views the server answers from.",
)
