"""Capture: planning ranges and chunks, prefetching them on every connection, the tail."""
