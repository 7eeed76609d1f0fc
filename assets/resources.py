"""Resources: where the corpus and the catalog live, and which rule set indexes.

Locations are fsspec URLs (a local folder, `s3://...`, `memory://...`); definitions.py
fills them from environment variables with `EnvVar`, so nothing is read at import time.
No indexing logic here.
"""

from __future__ import annotations

import os

import dagster as dg

from pipelines.corpus.reader import CorpusReader
from pipelines.index.rules import Rules

RULES_ENV = "USENET_INDEXER_RULES"


class CorpusResource(dg.ConfigurableResource):
    """The stored overview corpus (docs/CORPUS.md)."""

    url: str

    def reader(self) -> CorpusReader:
        return CorpusReader(self.url)


class CatalogResource(dg.ConfigurableResource):
    """The Parquet catalog the header pass writes and the server reads (docs/CATALOG.md)."""

    url: str


class RulesResource(dg.ConfigurableResource):
    """The rule set: a JSON file, or the built-in rules when no path is given.

    The path may come from config or, at run time, from USENET_INDEXER_RULES.
    """

    path: str = ""

    def load(self) -> Rules:
        path = self.path or os.environ.get(RULES_ENV, "")
        return Rules.load(path or None)
