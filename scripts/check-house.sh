#!/usr/bin/env bash
# The house rules a reviewer would otherwise have to remember, checked on the sources (issue 33;
# docs/ARCHITECTURE.md, "Rules"). Run by `make test`; prints each breach as FILE:LINE and exits 1.
#
# 1. A facade file of the core (Sources/AttachmentStore/**/AttachmentStore+*.swift) only
#    orchestrates: no SQL text, no GRDB, no POSIX call, no FileManager. Queries live on the
#    record types in Catalog/, file handling in Support/ and the subsystem folders.
# 2. Every decision that depends on where the originals live (files, catalog, object store) is
#    made in Sources/AttachmentStore/Blobs/Backends/ and asked by name elsewhere.
# 3. The libraries name no command-line flag and no `attach` command in what they say: the
#    advice that names one is the CLI's (Sources/attach/Support/ErrorHint.swift).
# 4. SQL on the attachment table, and so its column names, is written in three files of the
#    core: the schema, AttachmentRecord.swift (its columns) and AttachmentRecord+Queries.swift.
set -u
cd "$(dirname "$0")/.."
status=0

# Code lines only: doc comments and comments may explain what the SQL or a flag is.
code_lines() { grep -nE "$1" "${@:2}" | grep -vE '^[^:]+:[0-9]+:\s*//'; }

breach() {
    local rule=$1 lines=$2
    if [ -n "$lines" ]; then
        echo "check-house: $rule" >&2
        echo "$lines" | sed 's/^/  /' >&2
        status=1
    fi
}

facades=$(find Sources/AttachmentStore -name 'AttachmentStore+*.swift' | sort)
breach "a facade file runs SQL itself (move the statement onto a record type in Catalog/)" \
    "$(code_lines '"[^"]*\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER)\b|^\s*(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|ORDER BY|GROUP BY)\b|\bdb\.(execute|query|queryOne)\(|fetchOne|fetchAll\(db' $facades)"
breach "a facade file imports GRDB or the C library (database and file handling live in Catalog/ and Support/)" \
    "$(code_lines '^\s*import (GRDB|Glibc|Musl|Darwin)\b' $facades)"
breach "a facade file makes a POSIX call or uses FileManager (use POSIXFile in Support/ or a subsystem type)" \
    "$(code_lines '\bFileManager\b|\berrno\b|(^|[^.A-Za-z])(open|close|unlink|rename|stat|lstat|access|chmod|fsync|flock|mkdir|opendir|ftruncate)\(' $facades |
        grep -v 'open(at:')"

breach "a placement decision outside Blobs/Backends/ (ask BlobPlacement or the backend by name: keepsOriginalsAsFiles, …)" \
    "$(code_lines 'placement\s*(==|!=)|(==|!=)\s*(\.|BlobPlacement\.)(objectStore|catalog|files)\b' \
        $(find Sources/AttachmentStore -name '*.swift' -not -path 'Sources/AttachmentStore/Blobs/Backends/*' | sort))"

libraries="Sources/AttachmentStore Sources/AttachmentSync Sources/CatalogSQL Sources/AttachmentS3 Sources/AttachmentPostgres Sources/S3Client Sources/Imaging"
breach "a library names a command-line flag or an attach command in a message (hints are the CLI's: ErrorHint)" \
    "$(code_lines '"[^"]*(--[a-z][a-z-]+|`attach [a-z]+)' $(find $libraries -name '*.swift' | sort))"

attachmentHomes='Sources/AttachmentStore/Catalog/(CatalogSchema|AttachmentRecord|AttachmentRecord\+Queries)\.swift'
breach "SQL on the attachment table outside its three homes (add a query to Catalog/AttachmentRecord+Queries.swift)" \
    "$(code_lines '\b(FROM|JOIN|UPDATE|INTO|TABLE) attachment\b|"[^"]*\battachment\.(noteId|position|blobHash|mediaType|filename|width|height|orientation|metadata|clock|trashedAt)\b' \
        $(find Sources/AttachmentStore -name '*.swift' | sort) | grep -vE "^$attachmentHomes:")"

if [ $status -eq 0 ]; then
    echo "check-house: $(echo "$facades" | wc -l) facade files orchestrate only; placement decided in Blobs/Backends/; no flag text in the libraries; attachment SQL in its three files"
fi
exit $status
