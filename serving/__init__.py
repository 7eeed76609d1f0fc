"""FastAPI app: Newznab API, NZB downloads and web pages over DuckDB views."""
