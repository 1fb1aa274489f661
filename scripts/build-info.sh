#!/bin/sh
# build-info.sh PACKAGE_DIR OUTPUT_DIR: writes OUTPUT_DIR/BuildInfo.swift with the commit the
# package is built from (`git rev-parse`, "-modified" when the work tree has changes, "unknown"
# outside a git checkout). Run by the BuildInfo plugin before every build; the file is
# rewritten only when its contents change, so an unchanged commit rebuilds nothing.
set -eu
package=$1
out=$2
mkdir -p "$out"
commit=$(git -C "$package" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && ! git -C "$package" diff --quiet HEAD -- 2>/dev/null; then
  commit="$commit-modified"
fi
new=$(printf '/// Where this binary was built from; written by scripts/build-info.sh.\nenum BuildInfo {\n    /// The git commit (short), with -modified for uncommitted changes, or "unknown".\n    static let commit = "%s"\n}\n' "$commit")
if [ ! -f "$out/BuildInfo.swift" ] || [ "$(cat "$out/BuildInfo.swift")" != "$new" ]; then
  printf '%s\n' "$new" >"$out/BuildInfo.swift"
fi
