"""NZB files from outside the header pass become catalog releases: one path for every
source (an operator's files, a spot's NZB, an NZB posted to a group).

- `document`: the NZB's bytes read into files, segments, groups and meta (or why not);
- `release`: a document as a release's catalog rows, its files as the header pass's
  subject parser reads them;
- `overlap`: the releases the catalog already holds that share its message-ids;
- `store`: the import log and the `import-` partitions, written once;
- `run`: the import of many NZBs, each with its provenance and outcome.
"""
