"""RSA keys made from a seed, for the generator's spotters: the same seed, the same keys
(and so the same signed spots, PKCS#1 v1.5 signing being deterministic)."""

from __future__ import annotations

import random

from cryptography.hazmat.primitives.asymmetric import rsa

EXPONENT = 65537
_SMALL_PRIMES = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47)


def _probably_prime(n: int, rnd: random.Random, rounds: int = 24) -> bool:
    if n < 2 or any(n % p == 0 for p in _SMALL_PRIMES):
        return n in _SMALL_PRIMES
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(rounds):
        x = pow(rnd.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(bits: int, rnd: random.Random) -> int:
    while True:
        n = rnd.getrandbits(bits) | (3 << (bits - 2)) | 1  # top two bits: a full-size product
        if (n - 1) % EXPONENT and _probably_prime(n, rnd):
            return n


def seeded_key(seed: str, bits: int = 1024) -> rsa.RSAPrivateKey:
    """An RSA key whose primes come from `seed`."""
    rnd = random.Random(f"spot-key-{seed}")
    while True:
        p, q = _prime(bits // 2, rnd), _prime(bits // 2, rnd)
        if p != q:
            break
    d = pow(EXPONENT, -1, (p - 1) * (q - 1))
    public = rsa.RSAPublicNumbers(EXPONENT, p * q)
    numbers = rsa.RSAPrivateNumbers(
        p, q, d, rsa.rsa_crt_dmp1(d, p), rsa.rsa_crt_dmq1(d, q), rsa.rsa_crt_iqmp(p, q), public
    )
    return numbers.private_key()
