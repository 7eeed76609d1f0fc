#!/usr/bin/env bash
# The one command that sets up a fresh machine and runs every check: lint, types, layers, tests.
# Extra arguments go to pytest (e.g. scripts/test.sh -k corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
echo "test: ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "test: mypy"
.venv/bin/mypy
echo "test: import-linter"
.venv/bin/lint-imports
echo "test: pytest"
# pytest exits 5 when it collected no tests: that is a failure here too (set -e).
.venv/bin/pytest "$@"
