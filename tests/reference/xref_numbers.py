"""Plain-Python reference of kernels.xref_numbers: the regex it replaces."""

from __future__ import annotations

import re

_ARTICLE_NUMBER = re.compile(rb":\d+(?=\s|$)")  # a token's last `:n`


def strip_article_numbers(text: bytes) -> bytes:
    return _ARTICLE_NUMBER.sub(b":", text)
