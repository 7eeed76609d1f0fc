"""Slow, obviously-right plain-Python versions of the kernels, for the tests to compare.

The references production runs too (the subject rules, file names, encoded words, the
hash) are pipelines.subjects; the naming's first version, which its bench times, is
bench.naming_reference.
"""
