#!/usr/bin/env bash
# Measures whether what a store does every day costs the same at a million records (issue 34):
# a store of 1,000 notes with 10,000 attachment records and one of 100,000 notes with 1,000,000
# (made by `attach-bench notes --attachments`, ten records a note in both, every original on a
# peer), each served by `attach serve`; then, alternating between the two run after run, the
# median of
#   - a page of notes:           GET /api/notes?limit=50 (wrk, one connection, its median latency)
#   - a note's attachments:      GET /api/notes/<the newest note>/attachments (its ten records)
#   - the feed's newest changes: GET /sync/changes?since=<all but the last 500>&limit=500
#   - attach stats and attach gc --grace 0, each a whole one-shot command (start-up included)
# Target: each at 1,000,000 records within 1.5x of its time at 10,000. Writes the scale section
# of BENCHMARKS.md (between <!-- scale:begin --> and <!-- scale:end -->). Called by `make bench`.
#
# Environment (and those of scripts/bench-lib.sh):
#   ATTACH_BENCH_BIN  attach-bench binary (default .build/release/attach-bench)
#   BENCH_SECONDS     length of each wrk run (default 3)
#   BENCH_SMOKE=1     100 and 1,000 notes (1,000 and 10,000 records), 1-second runs, one each
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"
bench_bin=${ATTACH_BENCH_BIN:-$repo/.build/release/attach-bench}
seconds=${BENCH_SECONDS:-3}
small=1000 large=100000
if [ "$smoke" = 1 ]; then small=100; large=1000; seconds=1; runs=1; fi
sizes=("$small" "$large")

bench_need_binaries
bench_need_commands wrk=wrk curl=curl
bench_check_output scale

bench_scratch
declare -A url seed_seconds store_bytes
for size in "${sizes[@]}"; do
  records=$((size * 10))
  say "seeding a store of $size notes and $records attachment records"
  seed_seconds[$size]=$("$bench_bin" notes --store "$scratch/store-$size" --count "$size" --attachments "$records" |
    python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["seconds"])')
  store_bytes[$size]=$(du -sb "$scratch/store-$size" | cut -f1)
  bench_serve "$scratch/store-$size" "$size"
  url[$size]=$served_url
done

# The newest note (seeded at position size - 1, a minute after the one before) holds ten records.
newest() { printf '00000000-0000-4000-8000-%012d' $(($1 - 1)); }
path() { # path REQUEST SIZE
  case $1 in
    page) echo "/api/notes?limit=50" ;;
    attachments) echo "/api/notes/$(newest "$2")/attachments" ;;
    # The seeded feed numbers its changes 1 … notes + records, in order.
    feed) echo "/sync/changes?since=$(($2 * 11 - 500))&limit=500" ;;
  esac
}
for size in "${sizes[@]}"; do
  got=$(curl -fs "${url[$size]}$(path attachments "$size")" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["attachments"]))')
  [ "$got" = 10 ] || die "the newest note of the $size-note store lists $got attachments, not 10"
  got=$(curl -fs "${url[$size]}$(path feed "$size")" | python3 -c 'import json,sys; b = json.load(sys.stdin); print(len(b["changes"]), b["hasMore"])')
  [ "$got" = "500 False" ] || die "the feed's newest page of the $size-note store is \"$got\", not 500 changes and the last"
done

one_shot() { # one_shot SIZE COMMAND...: times one attach command on the store; prints seconds
  local size=$1 started ended; shift
  started=$(now)
  "$bin" "$@" --store "$scratch/store-$size" > "$scratch/one-shot.out" 2>&1 || die "attach $* failed: $(cat "$scratch/one-shot.out")"
  ended=$(now)
  elapsed "$started" "$ended"
}

requests=(page attachments feed)
commands=(stats gc)
declare -A label samples
label[page]="a page of notes (\`GET /api/notes?limit=50\`)"
label[attachments]="a note's ten attachments (\`GET /api/notes/ID/attachments\`)"
label[feed]="the feed's newest 500 changes (\`GET /sync/changes\`)"
label[stats]="\`attach stats\` (the whole command)"
label[gc]="\`attach gc --grace 0\` (the whole command)"
for ((r = 1; r <= runs; r++)); do
  bench_wrk_latencies "$r" "${requests[@]}"
  for size in "${sizes[@]}"; do
    say "run $r of $runs: attach stats and attach gc, $size notes"
    samples[stats-$size]="${samples[stats-$size]:-} $(awk -v s="$(one_shot "$size" stats)" 'BEGIN { printf "%.3f", s * 1000 }')"
    samples[gc-$size]="${samples[gc-$size]:-} $(awk -v s="$(one_shot "$size" gc --grace 0)" 'BEGIN { printf "%.3f", s * 1000 }')"
  done
done
"$bin" stats --store "$scratch/store-$large" > "$scratch/stats-large.txt"

section=$(
  echo "<!-- scale:begin -->"
  echo "## A million records"
  echo
  bench_header
  echo "- Command: \`make bench\` (\`scripts/bench-scale.sh\`); stores made by \`attach-bench notes --count N --attachments 10N\` (ten attachment records a note, originals on a peer; $small notes in ${seed_seconds[$small]} s, $large in ${seed_seconds[$large]} s; $((store_bytes[$small] >> 20)) and $((store_bytes[$large] >> 20)) MiB on disk); SQLite catalogs."
  echo "- Each figure is the median over $runs runs: of wrk's median latency for a request (one connection, ${seconds} s), of the whole command for \`stats\` and \`gc\`; the two stores measured in turn within each run."
  echo
  echo "| measure | $((small * 10)) records | $((large * 10)) records | ratio | target ≤ 1.5× |"
  echo "|---|---|---|---|---|"
  missed=()
  for measure in "${requests[@]}" "${commands[@]}"; do
    # shellcheck disable=SC2086
    a=$(median ${samples[$measure-$small]}) b=$(median ${samples[$measure-$large]})
    r=$(ratio "$b" "$a")
    if awk -v r="$r" 'BEGIN { exit !(r <= 1.5) }'; then verdict=met; else verdict="missed by $(awk -v r="$r" 'BEGIN { printf "%d", (r / 1.5 - 1) * 100 + 0.5 }') %"; missed+=("$measure"); fi
    printf '| %s | %.2f ms | %.2f ms | %s× | %s |\n' "${label[$measure]}" "$a" "$b" "$r" "$verdict"
  done
  echo
  echo "- What keeps them flat: pages and the feed walk an index and stop after their rows (the query-plan test, \`QueryPlanTests\`, fails on any everyday statement that scans a table or sorts); \`stats\` reads the figures the catalog keeps as it changes (\`CatalogTally\`: one row in SQLite) instead of counting; \`gc\` reads its garbage through a partial index of unreferenced blobs, and the files it walks are looked up by name. Both still measure the store's folders on disk, which grow with the originals held here, not with the records."
  if [ ${#missed[@]} -gt 0 ]; then
    echo "- Missed: ${missed[*]}. Where the time goes is in the table's own terms: a one-shot command's start-up (opening the catalog, about the same at both sizes) against the part that grows."
  fi
  echo "- \`attach stats\` of the large store, as printed:"
  echo
  echo '```'
  cat "$scratch/stats-large.txt"
  echo '```'
  echo "<!-- scale:end -->"
)
bench_stop_sampler
bench_write_section scale "$section"
printf '%s\n' "$section"
