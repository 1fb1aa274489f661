#!/usr/bin/env bash
# Installs the system libraries and programs the package uses, when they are missing: libvips
# (images; loaded at run time on first use, see Sources/CVips), libwebpmux (WebP metadata),
# SQLite (catalog), pkg-config (to find them), ffmpeg (videos' sizes, posters and playable
# copies) and poppler-utils (PDFs' pages and first-page thumbnails), both run as limited child
# processes (see Sources/HelperProcess).
# Debian/Ubuntu only.
set -euo pipefail
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists vips 2>/dev/null || need+=(libvips-dev)
pkg-config --exists libwebpmux 2>/dev/null || need+=(libwebp-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev)
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
command -v pdftoppm >/dev/null 2>&1 && command -v pdfinfo >/dev/null 2>&1 || need+=(poppler-utils)
# shellcheck source=scripts/apt-lib.sh
. "$(dirname "$0")/apt-lib.sh"
apt_install "system packages" "${need[@]}"
