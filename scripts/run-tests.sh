#!/usr/bin/env bash
# run-tests.sh: every test, then the store's own suite again against each other backend.
# Run under scripts/with-services.sh (the Makefile's `test` target does), which starts the
# local S3 store and PostgreSQL and exports their variables. Expects `swift build --build-tests`.
#
#   1. swift test                      every target; the store suite on files + SQLite
#   2. ATTACH_TEST_BLOBS=directory     the store suite with originals in a directory outside the store
#   3. ATTACH_TEST_BLOBS=s3            the store suite with originals in S3
#   4. ATTACH_TEST_CATALOG=postgres    the store suite with its catalog in PostgreSQL and
#      ATTACH_TEST_BLOBS=s3            originals in S3 (the scale-out backend)
#
# Stops at the first failing pass and exits with its status.
set -euo pipefail
swift=${SWIFT:-swift}
# Swift Testing starts every test case at once unless told otherwise. On two cores, with 1,200
# cases that spawn servers, child processes, libvips renders and SQLite commits, a case's time
# limit then measures how long it queued behind the others rather than how long it took, and
# unrelated suites met their limits together (and the cancelled servers' shutdown crashed the
# process). At most this many cases run at once, so a limit measures the case.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}
# Each pass's output also goes to test-output/pass-N.log. When a pass fails, what failed (the
# "recorded an issue" lines, a crash) is written to test-output/test-failures.txt and printed
# last, so the end of a long CI log names the failing test rather than the services stopping.
#
# Pass 1 (1,400 tests at once on two cores) is run a second time when its first run fails: the
# first run's failures go to test-output/retried-failures.txt, which `make test` prints at its
# very end, so a test that failed once is named in every log even when the second run passes.
# Every folder the tests make goes under one scratch folder of this run (TMPDIR), removed when
# the run ends, pass or fail: a test that is cancelled, or a background render that outlives
# its test's folder, leaves nothing behind in /tmp (thousands of such folders, 4 GB, had piled
# up there over a few weeks of runs). World-searchable, so PostgreSQL's user reaches inside.
scratch=$(mktemp -d /tmp/attachstore-tests.XXXXXX)
chmod 755 "$scratch"
remove_scratch() { # a crashed run can leave a test's small tmpfs mounted inside
  awk -v dir="$scratch/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | xargs -r umount -l 2>/dev/null || true
  chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"
}
trap remove_scratch EXIT
export TMPDIR=$scratch
out=test-output
mkdir -p "$out"
rm -f "$out/test-failures.txt" "$out/retried-failures.txt"
failures() { # N TITLE STATUS: what failed in pass N's log, in at most 26 lines
  { echo "== pass $1 of 4 ($2) failed with exit status $3; what failed (whole log: $out/pass-$1.log):"
  grep -a -E -A2 'recorded an issue|Fatal error|Exited with (unexpected )?signal|Caught signal|error: Exited' "$out/pass-$1.log" \
    | grep -a -v '^--$' | cut -c1-600 | head -n 24 || true
  grep -a -E '^. Test run with .* failed' "$out/pass-$1.log" | tail -n 1 || true; } | awk '!seen[$0]++'
}
run_pass() { # N TRIES TITLE COMMAND...
  local n=$1 tries=$2 title=$3 status=0 try
  shift 3
  for ((try = 1; try <= tries; try++)); do
    status=0
    if [ "$tries" -gt 1 ]; then echo "== pass $n of 4: $title (run $try of at most $tries)"; else echo "== pass $n of 4: $title"; fi
    "$@" 2>&1 | tee "$out/pass-$n.log" || status=${PIPESTATUS[0]}
    [ "$status" = 0 ] && return 0
    if [ "$try" -lt "$tries" ]; then
      failures "$n" "$title" "$status" >> "$out/retried-failures.txt"
      echo "== pass $n failed (exit $status); running it once more. What failed:"
      cat "$out/retried-failures.txt"
    fi
  done
  failures "$n" "$title" "$status" > "$out/test-failures.txt"
  cat "$out/test-failures.txt"
  exit "$status"
}
run_pass 1 2 "every test (the store suite on files + SQLite)" "$swift" test --skip-build
run_pass 2 1 "the store suite with originals in a directory outside the store" \
  env ATTACH_TEST_BLOBS=directory "$swift" test --skip-build --filter AttachmentStoreTests
run_pass 3 1 "the store suite with originals in S3" \
  env ATTACH_TEST_BLOBS=s3 "$swift" test --skip-build --filter AttachmentStoreTests
run_pass 4 1 "the store suite on PostgreSQL + S3" \
  env ATTACH_TEST_CATALOG=postgres ATTACH_TEST_BLOBS=s3 "$swift" test --skip-build --filter AttachmentStoreTests
