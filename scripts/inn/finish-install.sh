#!/usr/bin/env bash
# Finishes Debian's inn2 install on a host without a fully qualified name.
#
# inn2's postinst asks innconfval for its paths, and innconfval refuses to answer
# when the host name does not resolve to a name with a domain and inn.conf sets no
# `domain:`. The package is then left half-configured. This sets `domain:` (only
# when it is unset) and runs the package's configuration again. Safe to run twice.
set -euo pipefail
conf=/etc/news/inn.conf
if [ ! -f "$conf" ]; then
    echo "inn: $conf is missing: is inn2 unpacked?" >&2
    exit 1
fi
if ! grep -q '^domain:' "$conf"; then
    echo "inn: setting 'domain: localdomain' in $conf (the host has no FQDN)"
    sed -i 's/^#\?domain:.*/domain:                      localdomain/' "$conf"
    grep -q '^domain:' "$conf" || echo "domain:                      localdomain" >>"$conf"
fi
DEBIAN_FRONTEND=noninteractive dpkg --configure -a
