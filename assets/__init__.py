"""Dagster definitions: wiring only, business logic lives in pipelines/.

`dagster dev -m assets` loads `defs` from here. One module per concept: partitions.py,
resources.py, indexing.py (how a run calls the header pass), assets.py, checks.py,
jobs.py, sensors.py, definitions.py; launch.py drives the main job.
"""

from assets.definitions import build_defs, defs

__all__ = ["build_defs", "defs"]
