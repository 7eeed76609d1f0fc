"""Dagster definitions: wiring only, business logic lives in pipelines/."""
