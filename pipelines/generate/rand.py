"""Random text in bulk: the high-entropy tokens of obfuscated names, subjects and message-ids.

Per-character Python random calls would dominate the generator's time; one numpy draw
per batch of tokens, sliced afterwards, keeps a token well under a microsecond.
"""

from __future__ import annotations

import functools
import string

import numpy as np

HEX = "0123456789abcdef"
UPPER_HEX = "0123456789ABCDEF"
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
LETTERS = string.ascii_letters
BASE36 = string.digits + string.ascii_lowercase
# PowerPost's per-file token shows `$ & -` beside the alphanumerics
POWERPOST = ALNUM + "$&-"


class Tokens:
    """Random tokens over an alphabet, drawn from one numpy generator (deterministic per seed).

    Random bytes come from a pool refilled a megabyte at a time: a numpy call per token
    would cost more than the token. `byte % len(alphabet)` favours the first letters of
    a 62-letter alphabet by a few percent, which no reader of names can tell.
    """

    POOL = 1 << 20

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._tables: dict[str, bytes] = {}
        self._pool = b""
        self._pos = 0

    def _table(self, alphabet: str) -> bytes:
        """A bytes.translate table sending each byte value to a letter of the alphabet."""
        table = self._tables.get(alphabet)
        if table is None:
            letters = alphabet.encode("ascii")
            table = bytes(letters[b % len(letters)] for b in range(256))
            self._tables[alphabet] = table
        return table

    def _bytes(self, n: int) -> bytes:
        if self._pos + n > len(self._pool):
            self._pool = self.rng.bytes(max(self.POOL, n))
            self._pos = 0
        out = self._pool[self._pos : self._pos + n]
        self._pos += n
        return out

    def many(self, alphabet: str, length: int, count: int) -> list[str]:
        """`count` tokens of `length` characters each."""
        if count <= 0:
            return []
        raw = self._bytes(count * length).translate(self._table(alphabet))
        if count == 1:
            return [raw.decode("ascii")]
        # cut in C: the letters widened to UCS-4 and viewed as fixed-width numpy strings
        # (no letter is NUL, which numpy would strip); faster than a regex split
        wide = np.frombuffer(raw, dtype=np.uint8).astype("<u4")
        tokens: list[str] = wide.view(f"<U{length}").tolist()
        return tokens

    def one(self, alphabet: str, length: int) -> str:
        return self.many(alphabet, length, 1)[0]

    def hex(self, length: int = 32) -> str:
        return self.one(HEX, length)


@functools.lru_cache(maxsize=1 << 16)  # NewsUP writes the posting second: few distinct
def base36(value: int) -> str:
    if value < 0:
        raise ValueError("base36 of a negative number")
    digits = []
    while True:
        value, rem = divmod(value, 36)
        digits.append(BASE36[rem])
        if not value:
            return "".join(reversed(digits))
