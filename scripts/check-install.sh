#!/usr/bin/env bash
# check-install.sh: `make install` into a temporary DESTDIR (debug build, the one make test
# has already built) and checks that the binary, the three completions and the man page are
# there and work, and that the installed binary serves the web UI, its static files and the API
# document from a folder away from the checkout (they are embedded in it: nothing is read from
# the build folder). Run by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$dest"' EXIT
make --no-print-directory install DESTDIR="$dest" PREFIX=/usr/local CONFIGURATION=debug >/dev/null
root=$dest/usr/local
failures=0
check() { # NAME COMMAND...
  if "${@:2}"; then echo "PASS $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}
check "binary runs and names its version and commit" grep -qE '^[0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{12}' <("$root/bin/attach" --version)
check "bash completion" grep -q "attach" "$root/share/bash-completion/completions/attach"
check "zsh completion" grep -q "#compdef attach" "$root/share/zsh/site-functions/_attach"
check "fish completion" grep -q "complete -c .attach" "$root/share/fish/vendor_completions.d/attach.fish"
check "man page" grep -q '^\.Dt ATTACH 1' "$root/share/man/man1/attach.1"
check "man page lists serve" grep -q 'serve' "$root/share/man/man1/attach.1"
check "no resource bundle is looked up beside the build" bash -c "! grep -q 'AttachmentServer.resources' '$root/bin/attach'"

# The installed copy, started from / with a store of its own, serves what the browser needs.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd / && exec "$root/bin/attach" serve --store "$dest/store" --port "$port" >"$dest/serve.log" 2>&1) &
server=$!
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && break; sleep 0.1; done
get() { curl -fsS "http://127.0.0.1:$port$1"; }
ready() { get /health/ready >/dev/null; }
check "installed serve answers /health/ready" ready
check "installed serve renders the notes page" grep -q '<html' <(get /)
check "installed serve sends app.js" grep -q 'function' <(get /static/app.js)
check "installed serve sends app.css" grep -q '{' <(get /static/app.css)
check "installed serve sends the API document" grep -q '^openapi: 3.1' <(get /openapi.yaml)
kill "$server"; wait "$server" 2>/dev/null || true; server=
echo "install: $((12 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
