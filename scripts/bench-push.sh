#!/usr/bin/env bash
# Measures a device's first push: a store holding one original (the 16 MB corpus photo, then a
# 256 MB file of random bytes made here) runs `attach sync push URL` to a fresh `attach serve`,
# which takes the note, the attachment record and the bytes (streamed, hashed, fsynced and
# installed). The reference is the disk itself: `cp FILE DIR/ && sync FILE`, the least any
# durable copy of the bytes on this machine costs. Push and cp runs alternate.
# Writes the push section of BENCHMARKS.md (between <!-- push:begin --> and <!-- push:end -->,
# the rest of the file is kept) and prints the table to stdout; progress goes to stderr.
# Called by `make bench`.
#
# Environment:
#   ATTACH_CORPUS  corpus folder (default .cache/corpus; needs special/large-16mb.jpg)
#   ATTACH_BIN     attach binary (default .build/release/attach)
#   BENCH_RUNS     timed runs per measure (default 5)
#   BENCH_LARGE_MB size of the large file in MiB (default 256; the smoke pass makes 32)
#   BENCH_SMOKE=1  one run (CI smoke pass; not a benchmark)
#   BENCH_OUT      file to write (default BENCHMARKS.md at the repo root)
#   TMPDIR         where the scratch folders go (default /tmp); its filesystem is what is measured
# Shared helpers (markers, timing, statistics, the report's header): scripts/bench-lib.sh.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"

bench_large_inputs
bench_check_output push

bench_scratch  # the servers below are stopped on exit (bench-lib's cleanup), also on Ctrl-C

mkdir "$scratch/files"
cp -- "$large" "$scratch/files/large-16mb.jpg"
huge_name=random-${large_mb}mb.bin
head -c $((large_mb << 20)) /dev/urandom > "$scratch/files/$huge_name"
names=(large-16mb.jpg "$huge_name")
declare -A bytes_of
for name in "${names[@]}"; do bytes_of[$name]=$(stat -c %s "$scratch/files/$name"); done

serve_fresh() { # serve_fresh: attach serve on a fresh store H; sets url and server_pid
  local port _
  fresh "$scratch/H"
  attach_quiet init --store "$scratch/H"
  port=$(free_port)
  "$bin" serve --store "$scratch/H" --port "$port" --log-level warning > "$scratch/H.out" 2> "$scratch/H.log" &
  server_pid=$!
  pids+=("$server_pid")
  url=http://127.0.0.1:$port
  for _ in $(seq 1 100); do curl -fs -o /dev/null "$url/health" 2> /dev/null && return 0; sleep 0.1; done
  die "attach serve did not start: $(cat "$scratch/H.log")"
}
stop_server() { kill "$server_pid" 2> /dev/null || true; wait "$server_pid" 2> /dev/null || true; }
blob_path() { local h; h=$(sha256sum "$scratch/files/$2" | cut -d' ' -f1); echo "$1/blobs/sha256/${h:0:2}/${h:2:2}/$h"; }

declare -A times  # "<name> <tool>" -> space-separated seconds
say "binary $bin; $runs run(s); scratch $scratch"
for ((r = 1; r <= runs; r++)); do
  for name in "${names[@]}"; do
    d=$scratch/D; fresh "$d"
    attach_quiet init --store "$d"
    attach_quiet import --no-thumbnails --new-note "Taken on the phone" --store "$d" -- "$scratch/files/$name"
    serve_fresh
    warm "$(blob_path "$d" "$name")"
    t0=$(now); attach_quiet sync push "$url" --store "$d"; t1=$(now)
    times["$name push"]+="$(elapsed "$t0" "$t1") "
    cmp -s "$scratch/files/$name" "$(blob_path "$scratch/H" "$name")" || die "after attach sync push, the server does not hold the bytes of $name"
    stop_server
    say "run $r/$runs  $name  attach sync push: $(elapsed "$t0" "$t1") s"

    c=$scratch/copy; fresh "$c"; mkdir "$c"
    warm "$scratch/files/$name"
    t0=$(now); cp -- "$scratch/files/$name" "$c/" && sync "$c/$name"; t1=$(now)
    times["$name cp"]+="$(elapsed "$t0" "$t1") "
    say "run $r/$runs  $name  cp + sync: $(elapsed "$t0" "$t1") s"
  done
done
fresh "$scratch/D"; fresh "$scratch/H"; fresh "$scratch/copy"

mibs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }
declare -A med
for key in "${!times[@]}"; do
  read -ra values <<< "${times[$key]}"
  med[$key]=$(median "${values[@]}")
done
table=$(
  printf '| measure | runs | min | median | max | ratio to cp + sync |\n'
  printf '|---|---:|---:|---:|---:|---:|\n'
  for name in "${names[@]}"; do
    read -ra v <<< "${times["$name cp"]}"; row_time "cp FILE DIR/ && sync FILE: $name (wall time)" "" "${v[@]}"
    read -ra v <<< "${times["$name push"]}"; row_time "attach sync push to a fresh attach serve: $name (wall time)" "${med["$name cp"]}" "${v[@]}"
  done
)
section=$(
  echo '<!-- push:begin -->'
  echo '## Push: a device sends its originals, against `cp` + `sync`'
  echo
  if [ "$smoke" = 1 ]; then
    echo "**Smoke pass (BENCH_SMOKE=1): one run. These numbers check that the benchmark works; they are not a benchmark.**"
    echo
  fi
  bench_header
  echo "- Input: \`special/large-16mb.jpg\` from the corpus (${bytes_of[large-16mb.jpg]} bytes) and \`$huge_name\`, ${bytes_of[$huge_name]} random bytes made by the script"
  echo "- Reproduce: \`make bench\` (builds the release binary, then runs \`scripts/bench-push.sh\`; BENCH_RUNS=N sets the number of runs, BENCH_LARGE_MB the large file's size)"
  echo
  echo "Each run imports the file into a fresh store D (\`attach import --no-thumbnails\`) and starts \`attach serve\` on a fresh store H, both untimed; then \`attach sync push http://H --store D\` is timed with \`date +%s.%N\`: it sends D's change feed (\`POST /sync/changes\`: the note and the attachment record), asks H how many bytes of the original it holds (\`HEAD /sync/blobs/<hash>\`) and streams the rest from the file (\`PATCH\`), which H hashes and writes as they arrive, fsyncs, renames into place and marks present; the command ends when H has answered, so the bytes are verified and durable on H. The time includes starting the process and opening D's catalog. The reference copies the same file on the same disk and fsyncs the copy: no network, no hash, no catalog. Before each timed command the source is read once (untimed), so both read from the page cache. Push and copy runs alternate; after each push the server's bytes are compared with the file."
  echo
  echo "$table"
  echo
  for name in "${names[@]}"; do
    printf -- '- %s: attach sync push took **%s×** the time of cp + sync (median %.3f s, about %s MiB/s, against %.3f s, about %s MiB/s).\n' \
      "$name" "$(ratio "${med["$name push"]}" "${med["$name cp"]}")" "${med["$name push"]}" "$(mibs "${bytes_of[$name]}" "${med["$name push"]}")" \
      "${med["$name cp"]}" "$(mibs "${bytes_of[$name]}" "${med["$name cp"]}")"
  done
  echo '<!-- push:end -->'
)

bench_write_section push "$section"
echo "$table"
