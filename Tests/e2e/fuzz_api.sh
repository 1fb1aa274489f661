#!/usr/bin/env bash
# Fuzzes the JSON API of a live `attach serve` from its own OpenAPI document with schemathesis,
# every check on and every phase (examples, coverage, fuzzing, and the stateful phase that
# follows the document's links from a created note to its attachments): no answer may be a 5xx,
# every answer must match the document, a method a path does not take is a 405 with `Allow`.
# Usage: fuzz_api.sh ATTACH_BINARY [MAX_EXAMPLES] [SEED]   (schemathesis is installed into
# .cache/fuzz-venv; SEED "random" picks one and prints it, so a failure can be replayed)
set -euo pipefail
attach=${1:?usage: fuzz_api.sh ATTACH_BINARY [MAX_EXAMPLES]}
examples=${2:-20}
seed=${3:-7}
if [ "$seed" = random ]; then seed=$(( (RANDOM << 15) | RANDOM )); fi
echo "schemathesis seed $seed (replay: $0 $attach $examples $seed)"
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=$root/.cache/fuzz-venv
# shellcheck source=Tests/e2e/python-venv.sh
. "$root/Tests/e2e/python-venv.sh"
ensure_venv "$venv" schemathesis schemathesis
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The largest upload limit a server takes, so that any Upload-Length the document allows is one
# this server accepts (a length past a smaller limit is a 413, which only the server's own
# configuration decides; the suite tests it).
"$attach" serve --store "$work/store" --port "$port" --log-level warning --max-upload 1048576 > "$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "serving " "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
cd "$work"  # schemathesis keeps its run data in the working folder
PYTHONPATH="$root/Tests/e2e" SCHEMATHESIS_HOOKS=schemathesis_hooks "$venv/bin/st" --config-file "$root/Tests/e2e/schemathesis.toml" run "http://127.0.0.1:$port/openapi.yaml" --url "http://127.0.0.1:$port" \
    --checks all --phases examples,coverage,fuzzing,stateful \
    --max-examples "$examples" --seed "$seed" --workers 1
