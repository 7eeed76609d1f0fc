#!/usr/bin/env bash
# Sets up this checkout on a fresh machine: a virtual environment in .venv with the
# project installed (editable), and with --dev the test tools and the Debian packages
# that the integration tests start (listed in scripts/debian-packages.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "setup: Python >= 3.11 is needed ($python is $("$python" --version 2>&1))" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$python" -m venv .venv
    .venv/bin/pip install --quiet --upgrade pip
fi

extra=""
if [ "${1:-}" = "--dev" ]; then
    extra="[dev]"
    # Debian packages for the integration tests (real servers, a real browser).
    mapfile -t wanted < <(grep -v '^\s*#' scripts/debian-packages.txt | grep -v '^\s*$' || true)
    missing=()
    for pkg in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" = 0 ]; then
            echo "setup: installing Debian packages: ${missing[*]}"
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -qq
            apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
                || bash scripts/inn/finish-install.sh
        else
            echo "setup: not root, cannot install ${missing[*]}; integration tests will skip" >&2
        fi
    fi
fi
echo "setup: installing usenet-indexer$extra into .venv"
.venv/bin/pip install --quiet --disable-pip-version-check -e ".$extra"
# The header pass's kernels compiled into numba's cache now, in processes of their own
# (2-4 minutes once per install or upgrade; at once when the cache is warm), so no first
# run pays for it: `pipelines/index/warm.py`.
.venv/bin/python -c 'import sys; from pipelines.index.warm import compile_apart; compile_apart(sys.stdout)'
