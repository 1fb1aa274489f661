#!/usr/bin/env bash
# Measures a new device's first sync (issue 34): a store A of 20,000 notes and 10,000 attachment
# records (made by `attach-bench notes --attachments`, 30,000 changes) served by `attach serve`;
# each run makes an empty store B and times `attach sync pull http://A --store B`, against the
# reference of reading every page of A's change feed with plain HTTP: one keep-alive
# connection, `GET /sync/changes?since=N&limit=L` until a page says no more follow, each page
# read whole and parsed as JSON to find the next cursor (Python's http.client and json), with
# the page size attach's first sync asks for. Runs alternate; medians; the load average is
# recorded. Targets: attach within 1.5x the reference, and at least 50,000 changes applied a
# second. Writes the first-sync section of BENCHMARKS.md (between <!-- first-sync:begin --> and
# <!-- first-sync:end -->). Called by `make bench`.
#
# Environment (and those of scripts/bench-lib.sh):
#   ATTACH_BENCH_BIN   attach-bench binary (default .build/release/attach-bench)
#   BENCH_NOTES        notes in A (default 20000)
#   BENCH_ATTACHMENTS  attachment records in A (default 10000)
#   BENCH_SMOKE=1      1,000 notes and 500 attachments, one run (CI smoke pass)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"
bench_bin=${ATTACH_BENCH_BIN:-$repo/.build/release/attach-bench}
notes=${BENCH_NOTES:-20000}
attachments=${BENCH_ATTACHMENTS:-10000}
if [ "$smoke" = 1 ]; then notes=1000; attachments=500; runs=1; fi
changes=$((notes + attachments))
# The page size a first sync asks for (AttachmentSync's SyncRound.firstSyncBatchSize).
page=${BENCH_PAGE:-5000}

[ -x "$bin" ] || die "attach binary not found at $bin (run \`swift build -c release --product attach\`)"
[ -x "$bench_bin" ] || die "attach-bench not found at $bench_bin (run \`swift build -c release --product attach-bench\`)"
command -v curl > /dev/null || die "curl is needed (apt-get install curl)"
bench_check_output first-sync

bench_scratch
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null || true
  wait 2> /dev/null || true
  rm -rf "$scratch"
}

say "seeding store A: $notes notes and $attachments attachment records"
seed=$("$bench_bin" notes --store "$scratch/A" --count "$notes" --attachments "$attachments" |
  python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["seconds"])')
port=$(free_port)
"$bin" serve --store "$scratch/A" --port "$port" --log-level warning > "$scratch/serve.out" 2> "$scratch/serve.log" &
server_pid=$!
url=http://127.0.0.1:$port
for _ in $(seq 1 100); do curl -fs "$url/health" > /dev/null 2>&1 && break; sleep 0.1; done
curl -fs "$url/health" > /dev/null || die "attach serve did not start: $(cat "$scratch/serve.log")"

# The reference: every page, read and parsed; prints "SECONDS CHANGES BYTES".
cat > "$scratch/read_pages.py" << 'EOF'
import http.client, json, sys, time
host, port, page = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
connection = http.client.HTTPConnection(host, port)
since, changes, size = 0, 0, 0
started = time.monotonic()
while True:
    connection.request("GET", f"/sync/changes?since={since}&limit={page}")
    body = connection.getresponse().read()
    batch = json.loads(body)
    changes += len(batch["changes"])
    size += len(body)
    since = batch["nextSequence"]
    if not batch["hasMore"]:
        break
print(f"{time.monotonic() - started:.6f} {changes} {size}")
EOF

read_pages() { python3 "$scratch/read_pages.py" 127.0.0.1 "$port" "$page"; }
read -r _ served bytes < <(read_pages)
[ "$served" = "$changes" ] || die "A's feed holds $served changes, not $changes"

pull() { # pull RUN: times a first sync into a fresh store; prints seconds
  local store=$scratch/B-$1 started ended
  "$bin" init --store "$store" > /dev/null
  started=$(now)
  "$bin" sync pull "$url" --store "$store" --json > "$scratch/pull-$1.json"
  ended=$(now)
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changes"])' "$scratch/pull-$1.json")
  [ "$got" = "$changes" ] || die "the pull read $got changes, not $changes: $(cat "$scratch/pull-$1.json")"
  elapsed "$started" "$ended"
  rm -rf "$store"
}

# SQLite's own share: A's rows inserted into the same schema (an empty store's catalog) by
# Python's sqlite3, in transactions of a page each, with the writer settings attach uses; prints
# seconds. What attach does beyond this is decoding, checking and merging the changes.
cat > "$scratch/insert_rows.py" << 'EOF'
import sqlite3, sys, time
source, target, page = sys.argv[1], sys.argv[2], int(sys.argv[3])
read = sqlite3.connect(source)
write = sqlite3.connect(target, isolation_level=None)
for pragma in ("synchronous = FULL", "temp_store = MEMORY", "cache_size = -16384"):
    write.execute("PRAGMA " + pragma)
def rows(table):
    # referenceCount is the triggers' to keep (CatalogTally), as in a copy of a catalog.
    columns = [row[1] for row in read.execute(f"PRAGMA table_info({table})") if row[1].lower() != "referencecount"]
    return columns, read.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
tables = [(table,) + rows(table) for table in ("note", "blob", "attachment")]
def insert(table, columns, rows):
    # As attach writes a page's new rows (SQLUpsertBatch): 64 a statement, the rest in 32, 16, ... 1.
    row = "(" + ", ".join("?" * len(columns)) + ")"
    while rows:
        size = 64
        while size > len(rows):
            size //= 2
        write.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES " + ", ".join([row] * size),
                      [value for values in rows[:size] for value in values])
        rows = rows[size:]
started = time.monotonic()
for table, columns, values in tables:
    for start in range(0, len(values), page):
        write.execute("BEGIN IMMEDIATE")
        # As attach applies a page: its new notes indexed for search at its end (NoteSearchDeferral).
        write.execute("INSERT INTO noteSearchDeferred (noteRowid) VALUES (0)")
        insert(table, columns, values[start:start + page])
        write.execute("INSERT INTO note_search (rowid, title, body) SELECT note.rowid, note.title, note.body "
                      "FROM noteSearchDeferred JOIN note ON note.rowid = noteSearchDeferred.noteRowid")
        write.execute("DELETE FROM noteSearchDeferred")
        write.execute("COMMIT")
print(f"{time.monotonic() - started:.6f}")
EOF
insert_rows() { # insert_rows RUN: prints seconds
  local store=$scratch/S-$1 seconds
  "$bin" init --store "$store" > /dev/null
  seconds=$(python3 "$scratch/insert_rows.py" "$scratch/A/catalog.sqlite" "$store/catalog.sqlite" "$page")
  rm -rf "$store"
  echo "$seconds"
}

reference=() attach=() floor=()
for ((r = 1; r <= runs; r++)); do
  say "run $r of $runs: reading every page"
  read -r seconds _ _ < <(read_pages)
  reference+=("$seconds")
  say "run $r of $runs: attach sync pull into an empty store"
  attach+=("$(pull "$r")")
  say "run $r of $runs: the same rows inserted by sqlite3"
  floor+=("$(insert_rows "$r")")
done

ref_median=$(median "${reference[@]}")
attach_median=$(median "${attach[@]}")
times=$(ratio "$attach_median" "$ref_median")
rate=$(awk -v n="$changes" -v t="$attach_median" 'BEGIN { printf "%d", n / t }')
verdict() { # verdict MET MISSED_BY_PERCENT
  if [ "$1" = 1 ]; then echo met; else echo "missed by $2 %"; fi
}
ratio_met=$(awk -v r="$times" 'BEGIN { print (r <= 1.5) ? 1 : 0 }')
ratio_miss=$(awk -v r="$times" 'BEGIN { printf "%d", (r / 1.5 - 1) * 100 + 0.5 }')
rate_met=$(awk -v r="$rate" 'BEGIN { print (r >= 50000) ? 1 : 0 }')
rate_miss=$(awk -v r="$rate" 'BEGIN { printf "%d", (1 - r / 50000) * 100 + 0.5 }')

section=$(
  echo "<!-- first-sync:begin -->"
  echo "## A new device's first sync"
  echo
  bench_header
  echo "- Command: \`make bench\` (\`scripts/bench-first-sync.sh\`); store A made by \`attach-bench notes --count $notes --attachments $attachments\` ($seed s): $changes changes, $((bytes >> 10)) KiB of change pages at $page changes a page; SQLite catalogs; A served by \`attach serve\` on loopback."
  echo "- Reference: every page of A's feed read on one keep-alive connection and parsed (Python \`http.client\` and \`json\`). Measured: \`attach sync pull\` into an empty store (records only, no bytes), every change applied and the cursor saved. Runs alternate."
  echo
  echo "| measure | runs | min | median | max | ratio |"
  echo "|---|---|---|---|---|---|"
  row_time "reading every page" "" "${reference[@]}"
  row_time "attach sync pull" "$ref_median" "${attach[@]}"
  row_time "SQLite alone: the same rows inserted (Python sqlite3, a transaction a page, 64 rows a statement)" "$ref_median" "${floor[@]}"
  echo
  echo "- SQLite alone: the same rows inserted by Python's sqlite3 into an empty store's catalog, a transaction a page and 64 rows a statement as attach writes them — each note's row and its five indexes, each attachment's row and blob row, the change feed (a store relays what it pulled), the kept statistics (\`CatalogTally\`'s triggers) and the FTS5 search index (a page's new notes indexed in one statement at its end, \`NoteSearchDeferral\`)."
  echo "- First sync within 1.5× the time to read its pages: ${times}× — $(verdict "$ratio_met" "$ratio_miss")."
  echo "- Changes applied a second: $rate (target at least 50,000) — $(verdict "$rate_met" "$rate_miss"). Reading the pages alone goes at $(awk -v n="$changes" -v t="$ref_median" 'BEGIN { printf "%d", n / t }') changes a second in this run: wherever reading them takes longer than 0.6 s, the target asks for a pull faster than the reading."
  echo "- Where the time goes (\`perf record --call-graph dwarf\` of a pull, and the server's CPU time from /proc, 2026-11-29): the pull's process uses about 1.2 s of CPU time for its 1.1–1.3 s, and the server about 0.5 s to render the pages: 1.7 s of work on two cores. The catalog's writer thread applies the pages, 0.86 s: SQLite about 60 % of it (the rows, their indexes, the change feed, the kept statistics, the search index, the commits and WAL checkpoints; the floor row above is the same work from Python), GRDB's statement arguments and binding 17 %, which records are new (\`SyncBatchLookups\`) 11 %, the peer-thumbnail queue 5 %. Reading and checking the pages takes 0.43 s on the cooperative pool (Foundation's JSONDecoder 72 % of it, the checks 13 %). A round keeps three pages in hand — the next page is asked for as soon as the current page's end is read from its bytes, and a page is read and checked while the one before is applied — but the second core carries both the server's rendering and this reading (about 0.9 s together), so it is the longer queue and the writer still waits about 0.3 s for pages. Since 2026-11-28 (2.73×; the binary of then took 2.5–2.8 s against 0.95–0.98 s for the reading on this machine on 2026-11-29): a page's new rows are written 64 to a statement (\`SyncPageWrites\`; SQLite's CPU time for the pull fell from 1.4 s to 0.7 s), a title's sort key no longer goes through Foundation for an ASCII title (it was 7 % of the pull), a change is read through one JSON container, the checks run off the writer, and the clock moves once a page. What would close the rest: reading pages without \`JSONDecoder\` (a decoder written for the page's shape) and binding rows without GRDB's per-value arguments."
  echo "<!-- first-sync:end -->"
)
bench_write_section first-sync "$section"
printf '%s\n' "$section"
