"""serve-nntp: a news server in front of a corpus, for tests, the demo and benchmarks."""
