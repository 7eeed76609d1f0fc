"""Slow, obviously-right plain-Python versions of the kernels, for the tests to compare."""
