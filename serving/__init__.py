"""FastAPI app: Newznab API, NZB downloads and web pages over the search index (`index/`),
the `release_files` Parquet (`pipelines.nzb.lookup`) and, for the status page, the
catalog's DuckDB views (`pipelines.catalog.views`)."""
