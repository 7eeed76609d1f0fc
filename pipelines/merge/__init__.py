"""Merges: joining what the header pass split of one upload (docs/MERGES.md)."""
