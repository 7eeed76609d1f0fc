"""Plain-Python stages of the indexer: corpus I/O, capture, range indexing, NZBs."""
