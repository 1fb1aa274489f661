#!/usr/bin/env bash
# Measures uploads to servers sharing one backend: 8 clients uploading to 2 `attach serve` on
# one PostgreSQL catalog and one S3 bucket, against the same uploads from 1 client to 1 server
# (the reference), in the same run (issue 13: PostgreSQL writers side by side). Writes the
# writers section of BENCHMARKS.md (between <!-- writers:begin --> and <!-- writers:end -->)
# and prints the table to stdout; progress goes to stderr. Called by `make bench` under
# scripts/with-services.sh, which starts the local S3 store; this script starts a PostgreSQL
# of its own, with its crash-safe defaults (fsync on), in the scratch folder.
#
# Environment (besides bench-lib.sh's ATTACH_CORPUS, ATTACH_BIN, BENCH_RUNS, BENCH_SMOKE,
# BENCH_OUT, TMPDIR):
#   S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_REGION   the S3 store (required)
#   BENCH_UPLOADS    uploads per client (default 12; 1 in the smoke pass)
#   BENCH_BASE_BIN   an earlier attach binary: its runs alternate with ATTACH_BIN's and get
#                    rows of their own (before/after in one run)
# Each configuration of each run gets a fresh schema and a fresh key prefix; afterwards (untimed)
# its notes are deleted, `attach gc --grace 0` removes its objects, and the schema is dropped.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"

bench_inputs
bench_require_s3
base_bin=${BENCH_BASE_BIN:-}
[ -z "$base_bin" ] || [ -x "$base_bin" ] || die "BENCH_BASE_BIN $base_bin is not an executable"
photo=$corpus/special/baseline.jpg
[ -f "$photo" ] || die "corpus file $photo is missing (run \`make corpus\`)"
uploads=${BENCH_UPLOADS:-12}
[ "$smoke" = 1 ] && uploads=1
case $uploads in ''|*[!0-9]*|0) die "BENCH_UPLOADS must be a positive integer, got '$uploads'" ;; esac
clients=8; servers=2
total=$((clients * uploads))
total_notes=$((total * 4))
command -v psql > /dev/null || die "psql is missing (scripts/services/postgres.sh installs postgresql-client)"

bench_check_output writers
bench_scratch

pids=()
pg_dir=$scratch/pg
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  "$repo/scripts/services/postgres.sh" destroy "$pg_dir" > /dev/null 2>&1 || true
  chmod -R u+w "$scratch" 2> /dev/null || true
  rm -rf "$scratch"
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

say "starting a durable PostgreSQL in $pg_dir"
pg_url=$(ATTACH_PG_DURABLE=1 "$repo/scripts/services/postgres.sh" start "$pg_dir" "$(free_port)" 2> "$scratch/pg.log") \
  || { cat "$scratch/pg.log" >&2; die "PostgreSQL did not start"; }
pg_version=$(psql "$pg_url" -Atc 'SHOW server_version')
run_id=$(date -u +%Y%m%d%H%M%S)-$$

# config_run BIN LABEL CLIENTS SERVERS RUN WORK: one timed configuration; sets `took` (seconds).
# WORK is `uploads` (TOTAL uploads into 8 notes, upload i into note i mod 8) or `notes` (TOTAL_NOTES
# notes created). Client c sends its requests one after the other, on one connection, to server
# c mod SERVERS. Runs in this shell, so that `cleanup` stops its servers if it fails.
config_run() {
  local b=$1 label=$2 n_clients=$3 n_servers=$4 r=$5 work=$6
  local schema=bw_${work}_${label}_$r catalog blobs dir port urls=() notes=() c s i t0 t1 args count
  catalog="$pg_url?schema=$schema"
  blobs="s3://$S3_BUCKET/bench-writers-$run_id-$work-$label-$r?endpoint=$S3_ENDPOINT"
  for ((s = 0; s < n_servers; s++)); do
    dir=$scratch/server-$s
    "$b" init --store "$dir" --catalog "$catalog" --blobs "$blobs" > "$scratch/init.log" 2>&1 \
      || { cat "$scratch/init.log" >&2; die "attach init failed ($b)"; }
    port=$(free_port)
    "$b" serve --store "$dir" --catalog "$catalog" --blobs "$blobs" --port "$port" --log-level warning \
      > /dev/null 2> "$scratch/serve-$s.log" &
    pids+=($!)
    urls+=("http://127.0.0.1:$port")
  done
  for u in "${urls[@]}"; do
    for _ in $(seq 1 100); do curl -fs "$u/health" > /dev/null 2>&1 && break; sleep 0.1; done
    curl -fs "$u/health" > /dev/null || die "attach serve did not start: $(cat "$scratch"/serve-*.log)"
  done
  # Untimed: the 8 notes the uploads go to (8 whatever the number of clients, so that every
  # configuration does the same work), and each upload made unique.
  local n=$total
  if [ "$work" = uploads ]; then
    for ((c = 0; c < 8; c++)); do
      notes+=("$(curl -fs -H 'Content-Type: application/json' -d "{\"title\": \"client $c\"}" "${urls[c % n_servers]}/api/notes" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')")
    done
    mkdir -p "$scratch/up"
    for ((i = 0; i < total; i++)); do
      { cat "$photo"; printf '%s run %s upload %s' "$label" "$r" "$i"; } > "$scratch/up/$i.jpg"
    done
    sync; warm "$scratch"/up/*.jpg
  else
    n=$total_notes
  fi
  local requests=()
  for ((c = 0; c < n_clients; c++)); do
    args=()
    for ((i = c; i < n; i += n_clients)); do
      [ ${#args[@]} -gt 0 ] && args+=(--next)
      if [ "$work" = uploads ]; then
        args+=(-fs -o /dev/null -H 'Content-Type: image/jpeg' --data-binary "@$scratch/up/$i.jpg"
               "${urls[c % n_servers]}/api/notes/${notes[i % 8]}/attachments?filename=$i.jpg")
      else
        args+=(-fs -o /dev/null -H 'Content-Type: application/json' -d "{\"title\": \"note $i\", \"body\": \"written by client $c\"}"
               "${urls[c % n_servers]}/api/notes")
      fi
    done
    requests+=("$(printf '%q ' curl "${args[@]}")")
  done
  local waits=()
  t0=$(now)
  for req in "${requests[@]}"; do bash -c "$req" & waits+=($!); done
  for w in "${waits[@]}"; do wait "$w" || die "a request failed ($work, $label run $r): $(cat "$scratch"/serve-*.log)"; done
  t1=$(now)
  took=$(elapsed "$t0" "$t1")
  if [ "$work" = uploads ]; then
    count=$(psql "$pg_url" -Atc "SELECT count(*) FROM $schema.attachment")
  else
    count=$(psql "$pg_url" -Atc "SELECT count(*) FROM $schema.note")
  fi
  [ "$count" = "$n" ] || die "the catalog holds $count rows after $n $work ($label run $r)"
  # Untimed: stop the servers, remove the objects (notes deleted, then gc), drop the schema.
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  pids=()
  if [ "$work" = uploads ]; then
    "$b" note rm "${notes[@]}" --store "$scratch/server-0" --catalog "$catalog" --blobs "$blobs" > /dev/null
    "$b" gc --grace 0 --store "$scratch/server-0" --catalog "$catalog" --blobs "$blobs" > /dev/null 2>&1 \
      || say "gc after $work $label run $r failed; its objects stay in the bucket"
  fi
  psql "$pg_url" -qc "SET client_min_messages = warning; DROP SCHEMA $schema CASCADE" > /dev/null
  rm -rf "$scratch/up" "$scratch"/server-*
}

# Each measure: its 1 → 1 and 8 → 2 configurations, of this binary and (BENCH_BASE_BIN) the
# earlier one, all alternating within each run.
declare -A times
measure_all() { # measure_all RUN WORK
  local r=$1 work=$2 side key binary order binaries
  # Which configuration and which binary go first both swap from one run to the next.
  if ((r % 2)); then order=(one many); binaries=(this base); else order=(many one); binaries=(base this); fi
  for side in "${order[@]}"; do
    for binary in "${binaries[@]}"; do
      [ "$binary" = base ] && [ -z "$base_bin" ] && continue
      local b=$bin; [ "$binary" = base ] && b=$base_bin
      if [ "$side" = one ]; then config_run "$b" "$binary$side" 1 1 "$r" "$work"
      else config_run "$b" "$binary$side" $clients $servers "$r" "$work"; fi
      key="$work $binary $side"
      times[$key]="${times[$key]:-} $took"
    done
  done
}
say "$total uploads of $(basename "$photo") ($(stat -c %s "$photo") bytes, each made unique) and $total_notes notes per configuration; PostgreSQL $pg_version; S3 $S3_ENDPOINT; $runs run(s)"
for ((r = 1; r <= runs; r++)); do
  for work in uploads notes; do measure_all "$r" "$work"; done
  say "run $r/$runs done"
done
# --- the report ------------------------------------------------------------------------------
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
table=$(
  printf '| measure | runs | min | median | max | ratio to 1 client → 1 server |\n'
  printf '|---|---:|---:|---:|---:|---:|\n'
  for work in uploads notes; do
    n=$total; what="uploads"; [ "$work" = notes ] && { n=$total_notes; what="notes created"; }
    # shellcheck disable=SC2086
    ref=$(median ${times[$work this one]})
    for binary in this base; do
      [ "$binary" = base ] && [ -z "$base_bin" ] && continue
      prefix=""; [ "$binary" = base ] && prefix="earlier binary: "
      for side in one many; do
        vals=${times[$work $binary $side]}
        # shellcheck disable=SC2086
        m=$(median $vals)
        if [ "$side" = one ]; then label="${prefix}1 client → 1 server, $n $what ($(rate "$n" "$m")/s)"
        else label="${prefix}$clients clients → $servers servers, $n $what ($(rate "$n" "$m")/s)"; fi
        if [ "$binary" = this ] && [ "$side" = one ]; then
          # shellcheck disable=SC2086
          row_time "$label" "" $vals
        else
          # shellcheck disable=SC2086
          row_time "$label" "$ref" $vals
        fi
      done
    done
  done
)
# shellcheck disable=SC2086
x_up=$(ratio "$(median ${times[uploads this many]})" "$(median ${times[uploads this one]})")
# shellcheck disable=SC2086
x_notes=$(ratio "$(median ${times[notes this many]})" "$(median ${times[notes this one]})")
shows="With $clients clients on $servers servers the $total uploads took **${x_up}×** the time one client on one server took, and the $total_notes notes **${x_notes}×**."
if [ -n "$base_bin" ]; then
  # shellcheck disable=SC2086
  b_up=$(ratio "$(median ${times[uploads this many]})" "$(median ${times[uploads base many]})")
  # shellcheck disable=SC2086
  b_notes=$(ratio "$(median ${times[notes this many]})" "$(median ${times[notes base many]})")
  shows="$shows Against the earlier binary, whose one advisory lock ran every write of every server one at a time, $clients → $servers took **${b_up}×** its time for the uploads and **${b_notes}×** for the notes."
fi
shows="$shows What stays one at a time on PostgreSQL is each transaction's change-feed triggers and its commit's flush (\`v9\`'s feed lock, held until the commit is visible); the bodies of writers of different notes and blobs overlap. On this machine the two cores are the limit, not the catalog: \`perf record -a\` during the $clients → $servers uploads (2026-11-26) found them busy (idle 1 %) with libvips making thumbnails (27 %), the S3 store's object and proxy servers (24 %), the two servers' threads (about 30 %) and PostgreSQL (7 %); a commit's flush costs 84 µs on this disk (\`pg_test_fsync\`). With PostgreSQL, S3 and the servers on machines of their own, the overlap matters more."

section=$(
  echo '<!-- writers:begin -->'
  echo "## Uploads from $clients clients to $servers servers on one PostgreSQL + S3"
  echo
  if [ "$smoke" = 1 ]; then
    echo "**Smoke pass (BENCH_SMOKE=1): one run, one upload per client. These numbers check that the benchmark works; they are not a benchmark.**"
    echo
  fi
  bench_header
  echo "- Backend: PostgreSQL $pg_version started by this script with its crash-safe defaults (\`fsync\`, \`synchronous_commit\` on), and the local S3 store (\`$S3_ENDPOINT\`, bucket \`$S3_BUCKET\`), on the same machine as the servers and clients"
  echo "- Input: \`special/baseline.jpg\` ($(stat -c %s "$photo") bytes), each upload made unique by a few trailing bytes, so none is deduplicated${base_bin:+; earlier binary: \`$base_bin\` ($("$base_bin" --version))}"
  echo "- Reproduce: \`make bench\`, or \`scripts/with-services.sh scripts/bench-writers.sh\` for this section alone; BENCH_RUNS=N, BENCH_UPLOADS=N (per client), BENCH_BASE_BIN=PATH (rows for an earlier binary)"
  echo
  echo "Each configuration gets a fresh catalog schema and key prefix: \`attach init\` and \`attach serve --catalog postgres://… --blobs s3://…\` per server (own store folder), then the timed part, with one \`curl\` per client sending its requests one after the other on one connection, client c to server c mod 2 (with 1 client, one \`curl\` sends everything to one server). Uploads: $total uploads (\`POST /api/notes/ID/attachments\`, \`--data-binary\`) into 8 notes made beforehand, upload i into note i mod 8; each is staged and fsynced, claimed in the catalog, sent to S3, committed in the catalog, and its thumbnail made in the background. Notes: $total_notes notes created (\`POST /api/notes\`), one catalog transaction each. Afterwards the catalog must count every row. Configurations and binaries alternate, which goes first swapping each run. Timed with \`date +%s.%N\`."
  echo
  echo "$table"
  echo
  echo "### What this shows"
  echo
  echo "$shows"
  echo '<!-- writers:end -->'
)
bench_write_section writers "$section"
echo "$table"
