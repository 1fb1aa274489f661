#!/usr/bin/env bash
# Installs what the real-browser test needs, when it is missing: Debian's chromium and
# chromium-driver, and Python selenium (python3-selenium). Debian/Ubuntu only.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
python3 -c 'import selenium' >/dev/null 2>&1 || need+=(python3-selenium)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing for the browser test: ${need[*]}" >&2
  echo "install them with:  sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
  exit 1
fi
echo "installing ${need[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
  { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; }
# python3-selenium installs into Debian's python3; a python3 earlier on PATH may not see it.
python3 -c 'import selenium' >/dev/null 2>&1 || /usr/bin/python3 -c 'import selenium' >/dev/null
