"""Scoring a catalog against a generator's truth, per subject family (`usenet-indexer score`)."""

from pipelines.score.catalog import CatalogView, load_catalog
from pipelines.score.score import FamilyScore, Score, normalise_name, score_catalog, score_view

__all__ = [
    "CatalogView",
    "FamilyScore",
    "Score",
    "load_catalog",
    "normalise_name",
    "score_catalog",
    "score_view",
]
