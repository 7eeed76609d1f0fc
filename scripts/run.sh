#!/usr/bin/env bash
# The main job on the embedded defaults: set up, generate a demo corpus, check it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
demo=${DEMO_DIR:-var/demo}
.venv/bin/usenet-indexer corpus check "$demo/corpus" || true
