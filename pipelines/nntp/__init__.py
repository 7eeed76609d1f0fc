"""NNTP: the client, its errors, the compressed overview variants and the connection pool."""
