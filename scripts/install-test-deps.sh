#!/usr/bin/env bash
# Installs the tools the tests use beyond the build's own (scripts/install-deps.sh), when missing:
# strace (the group-commit tests count an import's flushes from the kernel's side), unzip, and jq and
# sqlite3 (the manual's samples use them; Tests/e2e/docs_samples.py). Debian/Ubuntu only.
set -euo pipefail
need=()
command -v strace >/dev/null 2>&1 || need+=(strace)
# unzip -t checks the zips of originals the server streams.
command -v unzip >/dev/null 2>&1 || need+=(unzip)
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
# shellcheck source=scripts/apt-lib.sh
. "$(dirname "$0")/apt-lib.sh"
apt_install "test tools" "${need[@]}"
