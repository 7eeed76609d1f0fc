"""The PreDB: scene pres imported and announced, matched to releases on the seed's scan
schedule (docs/PREDB.md)."""
