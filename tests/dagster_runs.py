"""The Dagster definitions over test folders, and an instance that knows the corpus's ranges.

`in_process_defs(corpus, catalog, rules)` is `build_defs` with the three resources pointed
at the test's folders and the in-process executor; `registered(corpus)` is an ephemeral
instance whose range partitions were registered from the corpus, as the launcher does;
`folder_instance(home)` the instance of a DAGSTER_HOME folder, for runs of other processes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from assets import build_defs
from assets.launch import register
from assets.resources import CatalogResource, CorpusResource, RulesResource


def in_process_defs(corpus: str, catalog: str, rules: str = "") -> dg.Definitions:
    """The definitions over these folders (`rules`: a rule-set file, "" for the defaults)."""
    return build_defs(
        resource_overrides={
            "corpus": CorpusResource(url=corpus, catalog=catalog),
            "catalog": CatalogResource(url=catalog),
            "rules": RulesResource(path=rules),
        },
        executor=dg.in_process_executor,
    )


@contextmanager
def registered(corpus: str, catalog: str = "") -> Iterator[dg.DagsterInstance]:
    """An ephemeral instance with the corpus's ranges registered as partitions (`catalog`:
    where a group on several backbones has its primary pinned)."""
    with dg.DagsterInstance.ephemeral() as instance:
        register(instance, CorpusResource(url=corpus, catalog=catalog))
        yield instance


@contextmanager
def folder_instance(home: Path | str) -> Iterator[dg.DagsterInstance]:
    """The instance in a DAGSTER_HOME folder, disposed afterwards.

    Not entered with `with`: Dagster 1.13's `DagsterInstance.__exit__` never resets the
    definitions-state storage its `__enter__` set (a context variable), so every later
    `Definitions` of the process fails ("Attempted to resolve undefined DagsterInstance
    weakref") once the instance is gone.
    """
    instance = dg.DagsterInstance.from_config(str(home))
    try:
        yield instance
    finally:
        instance.dispose()
