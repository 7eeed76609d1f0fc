"""The Dagster definitions over test folders, and an instance that knows the corpus's ranges.

`in_process_defs(corpus, catalog, rules)` is `build_defs` with the three resources pointed
at the test's folders and the in-process executor; `registered(corpus)` is an ephemeral
instance whose range partitions were registered from the corpus, as the launcher does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg

from assets import build_defs
from assets.launch import register
from assets.resources import CatalogResource, CorpusResource, RulesResource


def in_process_defs(corpus: str, catalog: str, rules: str = "") -> dg.Definitions:
    """The definitions over these folders (`rules`: a rule-set file, "" for the defaults)."""
    return build_defs(
        resource_overrides={
            "corpus": CorpusResource(url=corpus),
            "catalog": CatalogResource(url=catalog),
            "rules": RulesResource(path=rules),
        },
        executor=dg.in_process_executor,
    )


@contextmanager
def registered(corpus: str) -> Iterator[dg.DagsterInstance]:
    """An ephemeral instance with the corpus's ranges registered as partitions."""
    with dg.DagsterInstance.ephemeral() as instance:
        register(instance, CorpusResource(url=corpus))
        yield instance
