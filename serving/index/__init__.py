"""The search index: word postings over the newest release versions, in segments.

`build` turns catalog partitions into a segment folder (run in a worker process),
`segment` maps one into memory, `searcher` answers queries over a set of segments.
"""
