#!/usr/bin/env bash
# Resumable uploads with tuspy (the tus client from PyPI) against a real `attach serve`, cut
# midway twice (a relay that drops the connection; the server killed and restarted).
# Usage: tus_resume.sh ATTACH_BINARY CORPUS_DIR   (tuspy is installed into .cache/tus-venv)
set -euo pipefail
attach=${1:?usage: tus_resume.sh ATTACH_BINARY CORPUS_DIR}
corpus=${2:?usage: tus_resume.sh ATTACH_BINARY CORPUS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=$root/.cache/tus-venv
# shellcheck source=Tests/e2e/python-venv.sh
. "$root/Tests/e2e/python-venv.sh"
ensure_venv "$venv" tuspy tusclient
exec "$venv/bin/python" "$root/Tests/e2e/tus_resume_test.py" "$attach" "$corpus"
