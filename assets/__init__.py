"""Dagster definitions: wiring only, business logic lives in pipelines/.

`dagster dev -m assets` loads `defs` from here. One module per concept: partitions.py,
resources.py, assets.py (a run calls the header pass through `pipelines.index.runs`),
checks.py, jobs.py, sensors.py (which ranges are due: `pipelines.index.schedule`),
definitions.py; launch.py drives the main job.
"""

from assets.definitions import build_defs, defs

__all__ = ["build_defs", "defs"]
