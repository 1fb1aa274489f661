#!/usr/bin/env bash
# Resumable uploads with tuspy (the tus client from PyPI) against a real `attach serve`, cut
# midway twice (a relay that drops the connection; the server killed and restarted).
# Usage: tus_resume.sh ATTACH_BINARY CORPUS_DIR   (tuspy is installed into .cache/tus-venv)
set -euo pipefail
attach=${1:?usage: tus_resume.sh ATTACH_BINARY CORPUS_DIR}
corpus=${2:?usage: tus_resume.sh ATTACH_BINARY CORPUS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=$root/.cache/tus-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import tusclient' > /dev/null 2>&1; then
    # venv needs ensurepip, which Debian ships separately (python3-venv).
    py=python3
    if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
        py=/usr/bin/python3
        if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
            # shellcheck source=scripts/apt-lib.sh
            . "$root/scripts/apt-lib.sh"
            apt_install "to make the venv for tuspy" python3-venv
        fi
    fi
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/pip" install -q tuspy
fi
exec "$venv/bin/python" "$root/Tests/e2e/tus_resume_test.py" "$attach" "$corpus"
