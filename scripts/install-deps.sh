#!/usr/bin/env bash
# Installs the system libraries the package links against, when they are missing:
# libvips (images), SQLite (catalog), pkg-config (to find them). Debian/Ubuntu only.
set -euo pipefail
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists vips 2>/dev/null || need+=(libvips-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing system packages: ${need[*]}" >&2
  echo "install them with:  sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
  exit 1
fi
echo "installing ${need[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
  { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; }
