"""Ids of films and series (IMDb, TVDB, TVmaze, TVRage, TMDB) from local files, on releases.

One module a job: `formats` (which source a file is), `sources` (a file imported as its
format's source table), `build` (the lookup from the sources in use), `keys` (titles as
keys), `lookup` (the lookup in memory), `match` (a parsed name to one entry or none),
`stage` (the ids of the catalog's new releases, `release_ids`). docs/IDS.md.
"""
