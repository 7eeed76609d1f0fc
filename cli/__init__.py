"""The command line: `usenet-indexer` and its subcommands, thin over every other layer.

The only package that imports every other (kernels, pipelines, assets, serving); none of
them imports it. A command parses its arguments, calls a stage, the server or the Dagster
launcher, and prints.
"""
