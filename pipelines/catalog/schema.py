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
        # set on a finished tombstone: this release went into that one (an album, a merge);
        # hide it
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
        # archive_first | par2_index | lone_random | sevenzip_last | media_first | nzb_file
        ("kind", pa.string()),
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

# What each rule of the operator's set matched in a range, per day of the headers' dates
# (pipelines/rules, docs/RULES.md): every rule that matched gets a row, not only the first.
RULE_HITS = pa.schema(
    [
        ("group", pa.string()),
        ("range_first", pa.int64()),
        ("range_last", pa.int64()),
        ("rule", pa.string()),
        ("day", pa.int32()),  # days since 1970-01-01 of the headers' effective dates
        ("headers", pa.int64()),
        ("bytes", pa.int64()),
        ("releases", pa.int64()),  # distinct release identities among them
        ("dropped", pa.int64()),  # the headers this rule dropped (it decided first)
        # a watch rule's rows split by what became of its headers: `kept`, or
        # `dropped by <rule id>`; empty for other rules
        ("outcome", pa.string()),
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

# The article pass's cache: one row per probed article, written once (`_probes/`).
PROBE_RESULTS = pa.schema(
    [
        ("message_id", pa.string()),  # without angle brackets
        ("probed_at", pa.int64()),  # epoch seconds
        # ok | missing (430) | bad_yenc | bad_crc | error: what the fetch and decode gave
        ("status", pa.string()),
        ("kind", pa.string()),  # par2 | rar | 7z | zip | nfo | media | other
        ("yenc_name", pa.string()),  # =ybegin's name
        ("yenc_size", pa.int64()),  # =ybegin's size: the whole file's bytes
        ("names", pa.list_(pa.string())),  # a par2 set's or an archive listing's file names
        ("sizes", pa.list_(pa.int64())),  # parallel to names (null where unknown)
        ("hashes", pa.list_(pa.binary(16))),  # a par2 set's 16 KiB MD5s, parallel to names
        ("encrypted", pa.bool_()),  # passworded: true, false, null unknown
        ("inner_archive", pa.bool_()),  # the listing holds an archive
        ("nfo_title", pa.string()),
        ("password_text", pa.string()),  # a password the article states (an NFO's line)
        ("par2_set", pa.binary(16)),  # the par2 recovery set id
        ("detail", pa.string()),  # why a body could not be read
        # MD5 of the decoded file's first 16 KiB (of the whole file when shorter) when the
        # article is its first part: the hash a par2 set describes each file by (merges)
        ("head_md5", pa.binary(16)),
    ]
)

# What the article pass learned of each probed release, per range of its candidates:
# `release_probes/<group>/<first>-<last>.parquet`, replaced whole when the range is probed
# again. The newest `probed_at` per release_key wins.
RELEASE_PROBES = pa.schema(
    [
        ("release_key", KEY),
        ("group", pa.string()),
        ("pending", pa.bool_()),  # an unnamed release (pending_releases) or a catalog one
        ("poster", pa.string()),
        ("tool", pa.string()),  # a pending release's posting tool (its signature's part)
        # named | exhausted | discarded | waiting (a pending release's ladder) | probed
        ("outcome", pa.string()),
        ("name", pa.string()),  # the usable name the probes gave (null: none)
        (
            "source",
            pa.string(),
        ),  # where the name came from: signature | par2 | archive | yenc | 7z | nfo
        ("step", pa.int8()),  # the ladder's last step climbed (0..3)
        ("password", pa.int8()),  # Newznab: 0 no, 1 passworded, 2 an inner archive; null unknown
        ("password_text", pa.string()),  # a known password (null: none known)
        ("inner_names", pa.list_(pa.string())),  # archive entries, par2 file names (<= 20)
        ("nfo_title", pa.string()),
        ("probes", pa.int32()),  # articles the ladder read (fetched or from the cache)
        ("fetched", pa.int32()),  # of them, fetched from a server in this run
        ("missing", pa.int32()),  # answered 430
        ("failed", pa.int32()),  # bodies that could not be read (bad yEnc, CRC, garbage)
        ("probed_at", pa.int64()),
        ("written_range", pa.int64()),  # the range whose candidates these are
    ]
)

# The merges' record (`pipelines/merge`): one row per release that went into another, per
# span merged: `release_merges/<group>/<first>-<last>.parquet` (an empty file marks a span
# merged with nothing to join). The merge itself is a catalog version: docs/MERGES.md.
RELEASE_MERGES = pa.schema(
    [
        ("from_key", KEY),  # the absorbed release (hidden by a tombstone)
        ("into_key", KEY),  # the release it went into (the merged version's key)
        ("group", pa.string()),
        ("via", pa.string()),  # par2 | name | sidecar
        ("par2_set", pa.binary(16)),  # the recovery set that matched (null unless par2)
        ("merged_at", pa.int64()),  # epoch seconds
        ("written_range", pa.int64()),  # the merged version's written_range
    ]
)

TABLES: dict[str, pa.Schema] = {
    "releases": RELEASES,
    "release_files": RELEASE_FILES,
    "pending_releases": PENDING_RELEASES,
    "probe_candidates": PROBE_CANDIDATES,
    "rule_counts": RULE_COUNTS,
    "rule_samples": RULE_SAMPLES,
    "rule_hits": RULE_HITS,
    "ranges": RANGES,
}
# the article pass's tables, written beside the header pass's (not every range has them)
PROBE_TABLES: dict[str, pa.Schema] = {
    "release_probes": RELEASE_PROBES,
    "probe_results": PROBE_RESULTS,
}
# the merges' record, written beside the merged versions (`releases/.../merge-*`)
MERGE_TABLES: dict[str, pa.Schema] = {"release_merges": RELEASE_MERGES}

# The health sweep's checks (`pipelines.health`): one row per release checked, written
# once per sweep batch (`release_health/<group>/<sweep>-<batch>.parquet`, never rewritten).
# The newest `checked_at` per key is the current one.
RELEASE_HEALTH = pa.schema(
    [
        ("release_key", KEY),
        ("group", pa.string()),
        ("checked_at", pa.int64()),  # epoch seconds
        # healthy | broken (some missing, par2 may repair it) | dead; null: the server's
        # answer was unusable, and the row only stamps the check so it is not redone at once
        ("verdict", pa.string()),
        ("segments", pa.int32()),  # STATs sent
        ("missing", pa.int32()),  # answered 430 (or 420/423)
        ("posted_last", pa.int64()),  # the release's, when checked (its age sets the cadence)
        # per provider that answered (issue 29), in priority order: its name and how many
        # sampled STATs it answered 430; the verdict and `missing` are the best provider's
        # (a release is healthy when some provider serves all of it). Null in older rows.
        ("providers", pa.list_(pa.string())),
        ("provider_missing", pa.list_(pa.int32())),
    ]
)
HEALTH_TABLES: dict[str, pa.Schema] = {"release_health": RELEASE_HEALTH}

# The judge's verdicts (`pipelines/judge/`): `release_verdicts/<group>/<t>-<t>.parquet`, one
# file per group and run (t: the run's judged_at), written once. The newest `judged_at` per
# key is its current verdict; a null rule takes an earlier verdict back.
RELEASE_VERDICTS = pa.schema(
    [
        ("release_key", KEY),
        ("group", pa.string()),
        ("rule", pa.string()),  # dead | fake | repeated | locked | unusable; null: taken back
        ("detail", pa.string()),  # what the rule saw, for people
        ("rules_version", pa.string()),  # the judge's rule set fingerprint
        ("judged_at", pa.int64()),  # epoch seconds, rising from run to run
    ]
)
JUDGE_TABLES: dict[str, pa.Schema] = {"release_verdicts": RELEASE_VERDICTS}
# NZB imports (docs/SPOTS.md): one row per NZB read, its provenance and outcome
NZB_IMPORTS = pa.schema(
    [
        ("imported_at", pa.int64()),  # epoch seconds
        ("origin", pa.string()),  # file | spot | posted: where the NZB came from
        ("path", pa.string()),  # its file, or the spot's message-id
        ("nzb_sha1", pa.binary(20)),  # SHA-1 of the bytes read
        ("outcome", pa.string()),  # inserted | linked | duplicate | empty | malformed
        ("reason", pa.string()),  # why malformed (broken_xml, not_nzb, ...), else null
        ("release_key", KEY),  # the release inserted or linked to; null: none
        ("group", pa.string()),
        ("name", pa.string()),
        ("files", pa.int32()),
        ("segments", pa.int64()),
        ("shared_segments", pa.int64()),  # of a link: message-ids the release holds
        ("bad_segments", pa.int64()),  # segment entries without a number or message-id
        ("passwords", pa.list_(pa.string())),  # <meta type="password">
        ("article", pa.int64()),  # the import's number (its release's first_article)
    ]
)
IMPORT_TABLES: dict[str, pa.Schema] = {"nzb_imports": NZB_IMPORTS}

# Spotnet spots (docs/SPOTS.md): one row per article of a spot group read, and the
# outcome of each valid spot's NZB (written as it changes: newest per message_id wins)
SPOTS = pa.schema(
    [
        ("article", pa.int64()),
        ("message_id", pa.string()),  # without angle brackets
        ("kind", pa.string()),  # spot | delete (a moderation message)
        ("valid", pa.bool_()),
        ("reason", pa.string()),  # why not valid (bad_xml_signature, no_hashcash, ...)
        ("key_id", pa.int32()),
        ("spotter_id", pa.string()),
        ("key_bits", pa.int32()),
        ("poster", pa.string()),
        ("title", pa.string()),
        ("tag", pa.string()),
        ("description", pa.string()),
        ("website", pa.string()),
        ("head_category", pa.int32()),  # 0 image, 1 sound, 2 games, 3 apps
        ("subcats", pa.list_(pa.string())),
        ("category", pa.int32()),  # Newznab id
        ("size", pa.int64()),
        ("posted", pa.int64()),
        ("image_ids", pa.list_(pa.string())),
        ("image_url", pa.string()),
        ("nzb_ids", pa.list_(pa.string())),
        ("target", pa.string()),  # a delete's target message-id
        ("passwords", pa.list_(pa.string())),
        ("password_sources", pa.list_(pa.string())),  # spot-title | spot-text, per password
        ("imdb", pa.string()),
        ("read_at", pa.int64()),
    ]
)
SPOT_NZBS = pa.schema(
    [
        ("message_id", pa.string()),  # the spot's
        ("outcome", pa.string()),  # an import outcome, or waiting | gone | unreadable
        ("reason", pa.string()),
        ("release_key", KEY),  # the release it is (inserted) or links to
        ("at", pa.int64()),
    ]
)
SPOT_TABLES: dict[str, pa.Schema] = {"spots": SPOTS, "spot_nzbs": SPOT_NZBS}

# The id lookup (`pipelines/ids/`, docs/IDS.md): each imported file's rows
# (`_ids/sources/<format>/<digest>.parquet`), the lookup built from the newest of each
# format (`_ids/lookup/<build>/<table>.parquet`), and the ids matched to releases
# (`release_ids/<group>/<t>-<t>.parquet`, one file per group and run, written once).
_ID = pa.int64()  # an IMDb number (tt0944947 -> 944947), a TVDB, TVmaze, TVRage or TMDB id
IDS_TABLES: dict[str, pa.Schema] = {
    "ids_imdb_basics": pa.schema(
        [
            ("imdb", _ID),
            ("kind", pa.string()),
            ("title", pa.string()),
            ("original_title", pa.string()),
            ("year", pa.int32()),
            ("end_year", pa.int32()),
        ]
    ),
    "ids_imdb_episodes": pa.schema(
        [("imdb", _ID), ("parent", _ID), ("season", pa.int32()), ("episode", pa.int32())]
    ),
    "ids_imdb_akas": pa.schema([("imdb", _ID), ("title", pa.string())]),
    "ids_tvmaze": pa.schema(
        [
            ("tvmaze", _ID),
            ("imdb", _ID),
            ("tvdb", _ID),
            ("tvrage", _ID),
            ("title", pa.string()),
            ("year", pa.int32()),
        ]
    ),
    "ids_tmdb": pa.schema(
        [
            ("tmdb", _ID),
            ("kind", pa.string()),
            ("imdb", _ID),
            ("title", pa.string()),
            ("year", pa.int32()),
        ]
    ),
    "ids_entries": pa.schema(
        [
            ("entry", pa.int32()),
            ("kind", pa.string()),
            ("title", pa.string()),
            ("year", pa.int32()),
            ("imdb", _ID),
            ("tvdb", _ID),
            ("tvmaze", _ID),
            ("tvrage", _ID),
            ("tmdb", _ID),
        ]
    ),
    "ids_names": pa.schema([("key_hash", pa.uint64()), ("entry", pa.int32())]),
    "ids_episodes": pa.schema(
        [("entry", pa.int32()), ("season", pa.int32()), ("episode", pa.int32()), ("imdb", _ID)]
    ),
    "release_ids": pa.schema(
        [
            ("release_key", KEY),
            ("name", pa.string()),
            ("entry_kind", pa.string()),
            ("imdb", _ID),
            ("tvdb", _ID),
            ("tvmaze", _ID),
            ("tvrage", _ID),
            ("tmdb", _ID),
            ("episode_imdb", _ID),
            ("title", pa.string()),
            ("year", pa.int32()),
            ("season", pa.int32()),
            ("episode", pa.int32()),
            ("method", pa.string()),  # how it matched; `ambiguous` and `none` keep no id
            ("candidates", pa.int32()),  # entries of that title (and year) the lookup holds
            ("lookup", pa.string()),  # the lookup build it matched against
            ("matched_at", pa.int64()),
        ]
    ),
}
# The PreDB (`pipelines/predb`, docs/PREDB.md): `_predb/events/<batch>.parquet`, one row per
# pre learned or nuke state changed, written once; `_predb/links/<batch>.parquet`, one row
# per release a pre named; `_predb/outcomes/<batch>.parquet`, one row per scan step taken.
PRE_EVENTS = pa.schema(
    [
        ("pre_key", KEY),  # SHA-1 of the title
        ("title", pa.string()),
        ("kind", pa.string()),  # pre | upd (fills in) | nuke | unnuke | modnuke | renuke | oldnuke
        ("reason", pa.string()),  # a nuke's reason
        ("source", pa.string()),  # the dump's source column, irc:<channel>, or the file
        ("seen_at", pa.int64()),  # epoch seconds this indexer learned it
        ("pre_time", pa.int64()),
        ("category", pa.string()),  # the PreDB's section (TV-X264, MP3, ...)
        ("size", pa.int64()),  # bytes; null unknown
        ("files", pa.int32()),
        ("filename", pa.string()),
        ("request_id", pa.int64()),
        ("request_group", pa.string()),
        ("live", pa.bool_()),  # announced live (IRC): P1 while young
    ]
)
PRE_LINKS = pa.schema(
    [
        ("pre_key", KEY),
        ("title", pa.string()),  # the pre's (the lookup finds its row by it)
        ("release_key", KEY),
        ("group", pa.string()),
        (
            "method",
            pa.string(),
        ),  # title|md5|md5_md5|sha1|sha256[_lower]|request : release|file|inner
        ("linked_at", pa.int64()),
        ("written_range", pa.int64()),  # the renamed version's
    ]
)
PRE_OUTCOMES = pa.schema(
    [
        ("pre_key", KEY),
        ("priority", pa.int8()),
        # complete | nuked | expired | not_found_full | size_mismatch_cap (terminal);
        # not_found | size_mismatch | reaped (a step that leaves the pre waiting)
        ("outcome", pa.string()),
        ("attempt", pa.int16()),
        ("at", pa.int64()),
    ]
)
PREDB_TABLES: dict[str, pa.Schema] = {
    "pre_events": PRE_EVENTS,
    "pre_links": PRE_LINKS,
    "pre_outcomes": PRE_OUTCOMES,
}
SCHEMAS: dict[str, pa.Schema] = {
    **IDS_TABLES,
    **TABLES,
    **PROBE_TABLES,
    **MERGE_TABLES,
    **HEALTH_TABLES,
    **JUDGE_TABLES,
    **IMPORT_TABLES,
    **SPOT_TABLES,
    **PREDB_TABLES,
}
