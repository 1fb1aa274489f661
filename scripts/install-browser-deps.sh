#!/usr/bin/env bash
# Installs what the real-browser test needs, when it is missing: Debian's chromium and
# chromium-driver, and Python selenium (python3-selenium). Debian/Ubuntu only.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
/usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 || need+=(python3-selenium)
# shellcheck source=scripts/apt-lib.sh
. "$(dirname "$0")/apt-lib.sh"
[ ${#need[@]} -eq 0 ] || apt_install "for the browser test" "${need[@]}"
# python3-selenium installs into Debian's python3; a python3 earlier on PATH may not see it.
python3 -c 'import selenium' >/dev/null 2>&1 || /usr/bin/python3 -c 'import selenium' >/dev/null
