"""The article pass: read the few articles that name an upload, and bring pending ones in."""
