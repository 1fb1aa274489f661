#!/usr/bin/env bash
# Fuzzes the JSON API of a live `attach serve` from its own OpenAPI document with schemathesis:
# no answer may be a 5xx, and every answer must match the document.
# Usage: fuzz_api.sh ATTACH_BINARY [MAX_EXAMPLES]   (schemathesis is installed into .cache/fuzz-venv)
set -euo pipefail
attach=${1:?usage: fuzz_api.sh ATTACH_BINARY [MAX_EXAMPLES]}
examples=${2:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=$root/.cache/fuzz-venv
if [ ! -x "$venv/bin/st" ]; then
    # venv needs ensurepip, which Debian ships separately (python3-venv).
    py=python3
    if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
        py=/usr/bin/python3
        if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
            # shellcheck source=scripts/apt-lib.sh
            . "$root/scripts/apt-lib.sh"
            apt_install "to make the venv for schemathesis" python3-venv
        fi
    fi
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/pip" install -q schemathesis
fi
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$attach" serve --store "$work/store" --port "$port" --log-level warning > "$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "serving " "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
cd "$work"  # schemathesis keeps its run data in the working folder
"$venv/bin/st" run "http://127.0.0.1:$port/openapi.yaml" --url "http://127.0.0.1:$port" \
    --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
    --max-examples "$examples" --seed 7 --workers 1
