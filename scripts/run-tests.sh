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
echo "== pass 1 of 4: every test (the store suite on files + SQLite)"
"$swift" test --skip-build
echo "== pass 2 of 4: the store suite with originals in a directory outside the store"
ATTACH_TEST_BLOBS=directory "$swift" test --skip-build --filter AttachmentStoreTests
echo "== pass 3 of 4: the store suite with originals in S3"
ATTACH_TEST_BLOBS=s3 "$swift" test --skip-build --filter AttachmentStoreTests
echo "== pass 4 of 4: the store suite on PostgreSQL + S3"
ATTACH_TEST_CATALOG=postgres ATTACH_TEST_BLOBS=s3 "$swift" test --skip-build --filter AttachmentStoreTests
