"""Newznab error codes: always HTTP 200 with `<error code=".." description=".."/>`."""

from __future__ import annotations

BAD_KEY = 100
MISSING = 200
BAD_PARAMETER = 201
NO_FUNCTION = 202
NOT_AVAILABLE = 203
NO_ITEM = 300
REQUEST_LIMIT = 500
DOWNLOAD_LIMIT = 501
UNKNOWN = 900


class NewznabError(Exception):
    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
