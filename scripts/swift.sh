#!/usr/bin/env bash
# The `swift` that make runs (the Makefile's default SWIFT): the toolchain's own (SWIFT_TOOL, else
# `swift` on PATH), with one difference. A `swift build` that SwiftPM itself ends by a signal runs
# once more: SwiftPM 6.3 has crashed while planning a build (a bad pointer in libdispatch's event
# loop, `.ci/run` on 2026-11-29), and a build is safe to repeat. A build that fails (a compile
# error, exit status 1) is not repeated, nor is any other command: a test process that crashes is
# a failure to see. `make SWIFT=/path/to/swift …` bypasses this script.
set -uo pipefail
tool=${SWIFT_TOOL:-swift}
[ "${1:-}" = build ] || exec "$tool" "$@"
"$tool" "$@"
status=$?
if [ "$status" -gt 128 ] && [ "$status" -lt 160 ]; then
  echo "swift.sh: swift build ended by signal $((status - 128)) (SwiftPM crashed); running it once more" >&2
  exec "$tool" "$@"
fi
exit "$status"
