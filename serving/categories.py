"""The Newznab category table, shared with the NZB writer (`pipelines.nzb.categories`)."""

from pipelines.nzb.categories import CATEGORIES, name, parent, short_name, tree

__all__ = ["CATEGORIES", "name", "parent", "short_name", "tree"]
