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
# The trust suites (attack tests: floods, fuzzing, hostile peers and backups) run in a process of
# their own after the rest: run among the other suites, their load pushed unrelated suites past
# their time limits on two cores.
trust='HostileBackupTests|PeerCredentialTests|PostgresBlobHashMigrationTests|CraftedCatalogServeTests|EdgeTrustTests|FairConnectionTests|LoginRateLimitTests|PartialDownloadCapTests|PeerThumbnailTrustTests|RecordRulesAPITests|BlobHashMigrationTests|CraftedCatalogRowTests|PeerTextTests|RecordRulesTests|SafeFilenameTests|SearchFuzzTests'
echo "== pass 1 of 4: every test but the trust suites (store suite on files + SQLite)"
"$swift" test --skip-build --skip "$trust"
echo "== pass 1 of 4, second part: the trust suites"
"$swift" test --skip-build --filter "$trust"
echo "== pass 2 of 4: the store suite with originals in a directory outside the store"
ATTACH_TEST_BLOBS=directory "$swift" test --skip-build --filter AttachmentStoreTests
echo "== pass 3 of 4: the store suite with originals in S3"
ATTACH_TEST_BLOBS=s3 "$swift" test --skip-build --filter AttachmentStoreTests
echo "== pass 4 of 4: the store suite on PostgreSQL + S3"
ATTACH_TEST_CATALOG=postgres ATTACH_TEST_BLOBS=s3 "$swift" test --skip-build --filter AttachmentStoreTests
