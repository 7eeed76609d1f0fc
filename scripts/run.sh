#!/usr/bin/env bash
# The main job on the embedded defaults: set up, generate a demo corpus with article
# bodies, split uploads and junk (once), serve it over NNTP on loopback while Dagster
# materializes every asset on a local instance (header pass, article pass, merges, health,
# verdicts, compaction, catalog), then serve the catalog in the foreground (Ctrl-C stops
# it). State lives under var/ (or $STATE_DIR); USENET_INDEXER_NO_SERVE=1 stops after the
# job (for testing this script); PORT picks the server's port. Extra arguments go to
# `usenet-indexer demo` (e.g. --groups 2 --articles 5000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
state=${STATE_DIR:-var}
port=${PORT:-8000}
.venv/bin/usenet-indexer demo --state "$state" --port "$port" "$@"
if [ "${USENET_INDEXER_NO_SERVE:-}" = "1" ]; then
    echo "run: USENET_INDEXER_NO_SERVE=1, not serving"
    exit 0
fi
echo "run: serving $state/catalog on http://127.0.0.1:$port/ (Ctrl-C stops it)"
exec .venv/bin/usenet-indexer serve --catalog "$state/catalog" --port "$port" --open \
    --refresh 10 --index-dir "$state/serve-index"
