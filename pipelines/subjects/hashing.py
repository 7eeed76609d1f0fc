"""Plain-Python reference of kernels.hashing, on Python ints masked to 64 bits."""

from __future__ import annotations

M64 = (1 << 64) - 1
P1 = 0x9E3779B185EBCA87
P2 = 0xC2B2AE3D27D4EB4F
P3 = 0x165667B19E3779F9
P4 = 0x85EBCA77C2B2AE63
P5 = 0x27D4EB2F165667C5


def rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def avalanche(h: int) -> int:
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


def hash_bytes(b: bytes, seed: int = 0) -> int:
    h = (seed + P5 + len(b)) & M64
    full = len(b) - len(b) % 8
    for i in range(0, full, 8):
        w = int.from_bytes(b[i : i + 8], "little")
        w = (rotl((w * P2) & M64, 31) * P1) & M64
        h ^= w
        h = (rotl(h, 27) * P1 + P4) & M64
    for c in b[full:]:
        h ^= (c * P5) & M64
        h = (rotl(h, 11) * P1) & M64
    return avalanche(h)


def mix(a: int, b: int) -> int:
    return avalanche(a ^ rotl((b * P1 + P3) & M64, 37) ^ (b >> 53))
