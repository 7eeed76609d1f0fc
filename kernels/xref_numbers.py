"""Xref fields without their article numbers: what is left names the groups.

Every file handed out takes its groups from its Xref field (`Xref: host g:n g2:m`), and
the article numbers make each field unique: stripped of them, a release's files mostly
share one text, parsed once. The regex that stripped them (`:\\d+` before a blank or the
end) scanned every byte in Python's engine, ~1 us a field; this is one pass in a kernel.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel
from kernels.bytes import digits_end, is_space

_COLON = 58


@kernel
def _strip(text, out):
    """Copy text to out without the digits of each `:digits` that ends at a blank or at
    the text's end; returns the length written."""
    n = text.shape[0]
    i = 0
    o = 0
    while i < n:
        c = text[i]
        out[o] = c
        o += 1
        i += 1
        if c == _COLON:
            j = digits_end(text, i, n)
            # the bytes regex's \s after them
            if j > i and (j == n or is_space(text[j])):
                i = j
    return o


def strip_article_numbers(text: bytes) -> bytes:
    """The text with every `:n` token end (digits before whitespace or the text's end)
    cut to `:`, as `re.sub(rb":\\d+(?=\\s|$)", b":", text)` does."""
    data = np.frombuffer(text, np.uint8)
    out = np.empty(len(data), np.uint8)
    return out[: _strip(data, out)].tobytes()
