"""Every catalog table's Arrow schema, declared once.

The Parquet writer, the asset checks and the DuckDB views all read these, so a column
is declared here and nowhere else. docs/CATALOG.md says what each column means.
"""

from __future__ import annotations

import pyarrow as pa

KEY = pa.binary(20)  # SHA-1 keys as 20 raw bytes

RELEASES = pa.schema(
    [
        ("release_key", KEY),
        ("identity_key", KEY),
        ("name", pa.string()),
        ("poster", pa.string()),
        ("group", pa.string()),  # the owner group
        ("groups", pa.list_(pa.string())),  # every group the release was posted to
        ("posted_first", pa.int64()),  # epoch seconds of the first and last segment
        ("posted_last", pa.int64()),
        ("first_article", pa.int64()),  # article numbers in the owner group
        ("last_article", pa.int64()),
        ("files", pa.int32()),
        ("file_total", pa.int32()),  # announced by the [i/N] counter; null when none or a batch
        ("segments", pa.int64()),
        ("bytes", pa.int64()),
        ("complete", pa.bool_()),
        ("readable", pa.bool_()),
        ("has_par2", pa.bool_()),
        ("source", pa.string()),  # subject | stem | album
        ("category", pa.int32()),  # Newznab category id
        ("finished", pa.bool_()),  # false: provisional, carried to the next range
        ("members", pa.list_(pa.string())),  # album member names (first 20), else null
        ("written_range", pa.int64()),  # first article of the range that wrote this version
        ("rules_version", pa.string()),
        # set on a finished tombstone: this release went into that one (an album); hide it
        ("merged_into", KEY),
    ]
)

# The chunk store: per release and range, its files and their segment lists.
RELEASE_FILES = pa.schema(
    [
        ("release_key", KEY),
        ("written_range", pa.int64()),
        ("name", pa.string()),  # the file name (from the subject)
        ("subject", pa.string()),  # the subject of the file's first part, decoded
        ("poster", pa.string()),
        ("date", pa.int64()),  # epoch seconds of the file's first segment
        ("groups", pa.list_(pa.string())),
        ("file_index", pa.int32()),  # [i/N]: i, else null
        ("part_total", pa.int32()),  # (k/K): K
        ("bytes", pa.int64()),
        ("seg_numbers", pa.list_(pa.int32())),  # part numbers, ascending
        ("seg_bytes", pa.list_(pa.int32())),
        ("seg_ids", pa.list_(pa.string())),  # message-ids without angle brackets
    ]
)

PENDING_RELEASES = pa.schema(
    [
        ("release_key", KEY),
        ("identity_key", KEY),
        ("name", pa.string()),  # the random stem it was posted under
        ("poster", pa.string()),
        ("group", pa.string()),
        ("groups", pa.list_(pa.string())),
        ("posted_first", pa.int64()),
        ("posted_last", pa.int64()),
        ("first_article", pa.int64()),
        ("last_article", pa.int64()),
        ("files", pa.int32()),
        ("file_total", pa.int32()),
        ("segments", pa.int64()),
        ("bytes", pa.int64()),
        ("complete", pa.bool_()),
        ("finished", pa.bool_()),
        ("tool", pa.string()),  # the posting tool the message-ids point to
        ("probe_ids", pa.list_(pa.string())),  # message-ids the article pass should read
        ("written_range", pa.int64()),
        ("rules_version", pa.string()),
    ]
)

PROBE_CANDIDATES = pa.schema(
    [
        ("release_key", KEY),
        ("kind", pa.string()),  # archive_first | par2_index | lone_random | sevenzip_last
        ("file_name", pa.string()),
        ("message_id", pa.string()),
        ("segment", pa.int32()),
        ("pending", pa.bool_()),  # the release is in pending_releases, not the catalog
        ("written_range", pa.int64()),
    ]
)

RULE_COUNTS = pa.schema(
    [
        ("group", pa.string()),
        ("range_first", pa.int64()),
        ("range_last", pa.int64()),
        ("rule", pa.string()),
        ("detail", pa.string()),  # e.g. the owner group a crosspost was left to
        ("count", pa.int64()),
        ("rules_version", pa.string()),
    ]
)

RULE_SAMPLES = pa.schema(
    [
        ("group", pa.string()),
        ("range_first", pa.int64()),
        ("rule", pa.string()),
        ("article", pa.int64()),
        ("message_id", pa.string()),
        ("subject", pa.string()),
        ("poster", pa.string()),
    ]
)

# One row per indexed range: what the run did (the status page and Dagster read it).
RANGES = pa.schema(
    [
        ("group", pa.string()),
        ("range_first", pa.int64()),
        ("range_last", pa.int64()),
        ("rules_version", pa.string()),
        ("headers", pa.int64()),
        ("bad_lines", pa.int64()),
        ("segments_kept", pa.int64()),
        ("releases_finished", pa.int64()),
        ("releases_provisional", pa.int64()),
        ("files", pa.int64()),
        ("pending", pa.int64()),
        ("seconds", pa.float64()),
        ("indexed_at", pa.int64()),  # epoch seconds
    ]
)

TABLES: dict[str, pa.Schema] = {
    "releases": RELEASES,
    "release_files": RELEASE_FILES,
    "pending_releases": PENDING_RELEASES,
    "probe_candidates": PROBE_CANDIDATES,
    "rule_counts": RULE_COUNTS,
    "rule_samples": RULE_SAMPLES,
    "ranges": RANGES,
}
