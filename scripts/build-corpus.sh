#!/usr/bin/env bash
# Builds the shared corpus of real photos into .cache/corpus (ignored by git), once.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${ATTACH_CORPUS:-$here/.cache/corpus}
shared=${ATTACH_SHARED:-$here/../shared}
[ -f "$out/MANIFEST.tsv" ] && exit 0
script="$shared/corpus/make-dev-corpus.sh"
if [ ! -x "$script" ] && [ ! -f "$script" ]; then
  echo "corpus script not found at $script; set ATTACH_SHARED to the shared/ folder" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
CORPUS_CACHE=${CORPUS_CACHE:-$here/.cache/corpus-debs} bash "$script" "$out"
