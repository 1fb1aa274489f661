#!/usr/bin/env bash
# check-install.sh: `make install` into a temporary DESTDIR (debug build, the one make test
# has already built) and checks that the binary, the three completions and the man page are
# there and work. Run by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
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
echo "install: $((6 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
