"""Benchmarks and what only they (and the tests) use; nothing of the product imports them."""
