#!/usr/bin/env bash
# Builds the photo corpus the tests and benchmarks read into .cache/corpus (ignored by git),
# once (again when the builder's corpus version changes), with the repository's own builder
# (scripts/corpus/build-corpus.sh; downloads are kept in .cache/corpus-debs). ATTACH_CORPUS and CORPUS_CACHE move either folder.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${ATTACH_CORPUS:-$here/.cache/corpus}
mkdir -p "$(dirname "$out")"
CORPUS_CACHE=${CORPUS_CACHE:-$here/.cache/corpus-debs} exec "$here/scripts/corpus/build-corpus.sh" "$out"
