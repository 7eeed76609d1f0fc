"""Spotnet spots: signed descriptions of uploads with their NZB (docs/SPOTS.md).

- `encoding`: Spotnet's base64 and the spotter's id;
- `header`: the From header and Subject of a spot's overview line;
- `signing`: RSA PKCS#1 v1.5 over SHA-1, Spotnet's own keys, hashcash;
- `article`: a spot's full header (X-XML, its signature, the spotter's key);
- `verify`: every signature a spot carries checked over its bytes as posted;
- `nzb`: a spot's NZB from its articles' bodies.
"""
