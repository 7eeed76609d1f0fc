"""The PreDB's 64-bit keys of many names at once: BLAKE2b with an 8-byte digest of a tag
byte and the name (stripped of ASCII blanks), and the digest a name spells when it is
32, 40 or 64 hex digits (its first 8 bytes).

The plain-Python rule is `pipelines.predb.keys.name_keys` (hashlib's BLAKE2b): called a
name at a time it was most of what the scan spent keying a header pass's new names.
BLAKE2b here follows RFC 7693 for one unkeyed hash with an 8-byte digest.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel, leaf_kernel
from kernels.bytes import U, is_hex, load_le64

_IV = np.array(
    [
        0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
        0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179,
    ],
    dtype=np.uint64,
)  # fmt: skip
_SIGMA = np.array(
    [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ],
    dtype=np.int64,
)
# parameter block word 0 for an unkeyed hash of 8 bytes: digest length, key length 0,
# fanout 1, depth 1
_PARAM = np.uint64(0x01010008)
_BLOCK = 128
# the blanks a name is stripped of (`keys.BLANKS`)
_BLANKS = np.zeros(256, np.bool_)
for _c in b" \t\n\r\x0b\x0c":
    _BLANKS[_c] = True
_DIGEST_LENGTHS = (32, 40, 64)


@leaf_kernel
def _rotr(x, n):
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@leaf_kernel
def _g(v, a, b, c, d, x, y):
    v[a] = v[a] + v[b] + x
    v[d] = _rotr(v[d] ^ v[a], 32)
    v[c] = v[c] + v[d]
    v[b] = _rotr(v[b] ^ v[c], 24)
    v[a] = v[a] + v[b] + y
    v[d] = _rotr(v[d] ^ v[a], 16)
    v[c] = v[c] + v[d]
    v[b] = _rotr(v[b] ^ v[c], 63)


@leaf_kernel
def _compress(h, block, m, v, count, last, iv, sigma):
    for i in range(16):
        m[i] = load_le64(block, U(8 * i))
    for i in range(8):
        v[i] = h[i]
        v[i + 8] = iv[i]
    v[12] ^= np.uint64(count)
    if last:
        v[14] = ~v[14]
    for r in range(12):
        s = r % 10
        _g(v, 0, 4, 8, 12, m[sigma[s, 0]], m[sigma[s, 1]])
        _g(v, 1, 5, 9, 13, m[sigma[s, 2]], m[sigma[s, 3]])
        _g(v, 2, 6, 10, 14, m[sigma[s, 4]], m[sigma[s, 5]])
        _g(v, 3, 7, 11, 15, m[sigma[s, 6]], m[sigma[s, 7]])
        _g(v, 0, 5, 10, 15, m[sigma[s, 8]], m[sigma[s, 9]])
        _g(v, 1, 6, 11, 12, m[sigma[s, 10]], m[sigma[s, 11]])
        _g(v, 2, 7, 8, 13, m[sigma[s, 12]], m[sigma[s, 13]])
        _g(v, 3, 4, 9, 14, m[sigma[s, 14]], m[sigma[s, 15]])
    for i in range(8):
        h[i] ^= v[i] ^ v[i + 8]


@leaf_kernel
def _blake2b_64(data, a, b, tag, h, block, m, v, iv, sigma):
    """BLAKE2b-64 of the tag byte followed by data[a:b], as a little-endian uint64."""
    for i in range(8):
        h[i] = iv[i]
    h[0] ^= _PARAM
    total = b - a + 1
    done = 0  # message bytes compressed
    fill = 0  # bytes in the block
    pos = -1  # -1: the tag, then data[a + pos]
    while True:
        while fill < _BLOCK and done + fill < total:
            block[fill] = tag if pos < 0 else data[U(a + pos)]
            pos += 1
            fill += 1
        if done + fill == total:
            for k in range(fill, _BLOCK):
                block[k] = 0
            _compress(h, block, m, v, total, True, iv, sigma)
            return h[0]
        done += _BLOCK
        fill = 0
        _compress(h, block, m, v, done, False, iv, sigma)


@leaf_kernel
def _digest_key(data, a, b):
    """The first 8 bytes of the digest 32, 40 or 64 hex digits spell; 0 and False when
    data[a:b] spells none."""
    n = b - a
    if n != 32 and n != 40 and n != 64:
        return np.uint64(0), False
    for i in range(a, b):
        if not is_hex(data[U(i)]):
            return np.uint64(0), False
    key = np.uint64(0)
    for k in range(8):
        hi = _nibble(data[U(a + 2 * k)])
        lo = _nibble(data[U(a + 2 * k + 1)])
        key |= np.uint64(hi * 16 + lo) << np.uint64(8 * k)
    return key, True


@leaf_kernel
def _nibble(c):
    if c <= 57:
        return c - 48
    if c <= 70:
        return c - 55
    return c - 87


@kernel
def _keys(data, offsets, tag, digests, blanks, iv, sigma, keys, second, has_second):
    h = np.empty(8, np.uint64)
    m = np.empty(16, np.uint64)
    v = np.empty(16, np.uint64)
    block = np.empty(_BLOCK + 8, np.uint8)  # load_le64 reads whole words
    for r in range(offsets.shape[0] - 1):
        a = np.int64(offsets[r])
        b = np.int64(offsets[r + 1])
        while a < b and blanks[data[U(a)]]:
            a += 1
        while b > a and blanks[data[U(b - 1)]]:
            b -= 1
        keys[r] = _blake2b_64(data, a, b, tag, h, block, m, v, iv, sigma)
        if digests:
            second[r], has_second[r] = _digest_key(data, a, b)
        else:
            second[r], has_second[r] = np.uint64(0), False


def name_keys(
    data: np.ndarray, offsets: np.ndarray, tag: int, digests: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of each name (Arrow's values and offsets): BLAKE2b-64 of `tag` + the stripped name,
    and when `digests`, the digest key it spells (with whether it spells one)."""
    n = len(offsets) - 1
    keys = np.empty(n, np.uint64)
    second = np.empty(n, np.uint64)
    has_second = np.empty(n, np.bool_)
    _keys(data, offsets, np.uint8(tag), digests, _BLANKS, _IV, _SIGMA, keys, second, has_second)
    return keys, second, has_second
