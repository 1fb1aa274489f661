#!/usr/bin/env bash
# build-docs.sh: the DocC archives of the three libraries (AttachmentStore, AttachmentSync,
# AttachmentClient), each built by swift-docc-plugin into .build/docs/<Module> with
# --warnings-as-errors, so a ``symbol`` link that does not resolve, or a doc comment that
# documents some parameters and not others, fails the build. Prints one line per module with
# the seconds it took; stops at the first module that fails and prints its output (kept in
# .build/docs/<Module>.log either way). Run by `make docs`, and so by `make test`.
#
# Environment:
#   SWIFT  the swift driver (default swift)
#
# Preview one archive while writing: swift package --disable-sandbox preview-documentation --target AttachmentStore
set -euo pipefail
swift=${SWIFT:-swift}
cd "$(dirname "$0")/.."

out=.build/docs
# The plugin moves each finished archive into --output-path, whose parent must exist.
mkdir -p "$out"

for module in AttachmentStore AttachmentSync AttachmentClient; do
  log="$out/$module.log"
  start=$SECONDS
  if ! "$swift" package --allow-writing-to-directory "$out" generate-documentation \
      --target "$module" --output-path "$out/$module" --warnings-as-errors > "$log" 2>&1; then
    cat "$log" >&2
    echo "docs: $module FAILED after $((SECONDS - start)) s (output above, also in $log)" >&2
    exit 1
  fi
  echo "docs: $module -> $out/$module ($((SECONDS - start)) s)"
done
