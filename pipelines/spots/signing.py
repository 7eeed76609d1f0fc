"""RSA PKCS#1 v1.5 over SHA-1, as Spotnet signs, and the hashcash of self-signed spots.

Keys 2-4 are Spotnet's own (public facts of the protocol, as every client carries them:
moderators sign deletes with key 2). Every other key a spot names comes with it: a
modulus with the exponent 65537 (`AQAB`). Many spotters' keys are 384 bits, which prove
little; they are checked all the same (refusing them would drop half the feed), and the
spot keeps its key's size.
"""

from __future__ import annotations

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from pipelines.spots.encoding import spot_b64decode

EXPONENT = 65537
SPOTNET_KEYS: dict[int, bytes] = {
    2: b"ys8WSlqonQMWT8ubG0tAA2Q07P36E+CJmb875wSR1XH7IFhEi0CCwlUzNqBFhC+P",
    3: b"uiyChPV23eguLAJNttC/o0nAsxXgdjtvUvidV2JL+hjNzc4Tc/PPo2JdYvsqUsat",
    4: b"1k6RNDVD6yBYWR6kHmwzmSud7JkNV4SMigBrs+jFgOK5Ldzwl17mKXJhl+su/GR9",
}
KEY_SELF_SIGNED = 7
KEY_LEGACY = 1  # spots from before signing
KEY_MODERATOR = 2


class BadKey(ValueError):
    pass


def public_key(modulus: bytes, exponent: int = EXPONENT) -> rsa.RSAPublicKey:
    """The key of a modulus (big-endian bytes); BadKey when it is none (an even or tiny
    modulus, an exponent out of range)."""
    try:
        return rsa.RSAPublicNumbers(exponent, int.from_bytes(modulus, "big")).public_key()
    except ValueError as e:
        raise BadKey(str(e)) from e


def spotnet_key(key_id: int) -> rsa.RSAPublicKey | None:
    text = SPOTNET_KEYS.get(key_id)
    return None if text is None else public_key(spot_b64decode(text))


def verifies(key: rsa.RSAPublicKey, message: bytes, signature: bytes) -> bool:
    """Does signature sign message under key (PKCS#1 v1.5, SHA-1)?"""
    try:
        key.verify(signature, message, padding.PKCS1v15(), hashes.SHA1())
    except (InvalidSignature, ValueError):
        return False
    return True


def sign(key: rsa.RSAPrivateKey, message: bytes) -> bytes:
    """What a spotter posts (the generator signs its own spots this way)."""
    return key.sign(message, padding.PKCS1v15(), hashes.SHA1())


def has_hashcash(message_id: bytes) -> bool:
    """A self-signed spot's proof of work: the SHA-1 of `<message-id>` starts `0000`."""
    bracketed = message_id if message_id.startswith(b"<") else b"<" + message_id + b">"
    return hashlib.sha1(bracketed).hexdigest().startswith("0000")
