"""The synthetic corpus generator: binary-group overview lines with ground truth.

`generate_corpus(out, config)` writes `out/corpus/` (CorpusWriter ranges),
`out/truth/uploads.parquet`, `out/truth/noise.parquet` (with `split_and_junk`
`out/truth/gone.parquet` too) and `out/generate.json`;
`generate_range_lines(n, seed)` gives one group's lines in memory for benchmarks.
docs/GENERATOR.md describes what the corpus holds.
"""

from pipelines.generate.config import GenerateConfig, GenerateSummary
from pipelines.generate.corpus import generate_corpus, generate_range_lines

__all__ = ["GenerateConfig", "GenerateSummary", "generate_corpus", "generate_range_lines"]
