#!/usr/bin/env bash
# Measures what a page of notes costs as the store grows, through the JSON API of `attach serve`
# (release build): stores of 1,000, 10,000 and 100,000 notes (made by `attach-bench notes`),
# one server each, all running at once; then, alternating between the three servers run after
# run, the median latency (wrk, one connection) of
#   - the first page:        GET /api/notes?limit=50
#   - a deep page by cursor: GET /api/notes?limit=50&after=<the cursor 50 notes from the end>
#   - a deep page by offset: GET /api/notes?limit=50&offset=<count - 50>   (kept working; not a target)
#   - a rare search:         GET /api/notes?limit=50&q=zephyr   (20 notes match at every size)
#   - a common search:       GET /api/notes?limit=50&q=word123  (about 1.6 % of the notes match)
# The target (issue 13): at 100,000 notes each of the first page, the cursor page and the rare
# search within 1.5x of its time at 1,000. Writes the notes section of BENCHMARKS.md (between
# <!-- notes:begin --> and <!-- notes:end -->). Called by `make bench`.
#
# Environment (and those of scripts/bench-lib.sh):
#   ATTACH_BENCH_BIN  attach-bench binary (default .build/release/attach-bench)
#   BENCH_SECONDS     length of each wrk run (default 5)
#   BENCH_SMOKE=1     stores of 100 and 1,000 notes, 1-second runs, one each (CI smoke pass)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"
bench_bin=${ATTACH_BENCH_BIN:-$repo/.build/release/attach-bench}
seconds=${BENCH_SECONDS:-5}
runs=${BENCH_RUNS:-5}
sizes=(1000 10000 100000)
if [ "$smoke" = 1 ]; then sizes=(100 1000); seconds=1; runs=1; fi

bench_need_binaries
bench_need_commands wrk=wrk curl=curl
bench_check_output notes

bench_scratch

declare -A url seed_seconds
for size in "${sizes[@]}"; do
  say "seeding a store of $size notes"
  seed_seconds[$size]=$("$bench_bin" notes --store "$scratch/store-$size" --count "$size" | python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["seconds"])')
  bench_serve "$scratch/store-$size" "$size"
  url[$size]=$served_url
done

queries=(first cursor offset rare common)
declare -A label
label[first]="first page"; label[cursor]="deep page by cursor"; label[offset]="deep page by offset"
label[rare]="search, 20 matches"; label[common]="search, ~1.6 % match"
path() { # path QUERY SIZE: the request for QUERY on the store of SIZE notes
  local deep=$(( $2 - 50 )) position=50
  case $1 in
    first) echo "/api/notes?limit=50" ;;
    # The listing is newest first: after the note at position 50 come the last 50 (49 … 0).
    cursor) printf '/api/notes?limit=50&after=%d_00000000-0000-4000-8000-%012d\n' $(( 1700000000000 + position * 60000 )) "$position" ;;
    offset) echo "/api/notes?limit=50&offset=$deep" ;;
    rare) echo "/api/notes?limit=50&q=zephyr" ;;
    common) echo "/api/notes?limit=50&q=word123" ;;
  esac
}
for size in "${sizes[@]}"; do # the cursor page is the last 50 notes, and the rare search finds 20
  got=$(curl -fs "${url[$size]}$(path cursor "$size")" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["notes"]))')
  [ "$got" = 50 ] || die "the cursor page of the $size-note store holds $got notes, not 50"
  got=$(curl -fs "${url[$size]}$(path rare "$size")" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["notes"]))')
  [ "$got" = 20 ] || [ "$size" -lt 1000 ] || die "the rare search of the $size-note store finds $got notes, not 20"
done

declare -A samples
for ((r = 1; r <= runs; r++)); do
  bench_wrk_latencies "$r" "${queries[@]}"
done

largest=${sizes[${#sizes[@]}-1]}
smallest=${sizes[0]}
section=$(
  echo "<!-- notes:begin -->"
  echo "## Pages of notes as the store grows"
  echo
  bench_header
  echo "- Command: \`make bench\` (\`scripts/bench-notes.sh\`); stores made by \`attach-bench notes\` (seconds: $(for s in "${sizes[@]}"; do printf '%s notes %s s; ' "$s" "${seed_seconds[$s]}"; done | sed 's/; $//')); SQLite catalog"
  echo "- Each figure is the median over $runs runs of wrk's median latency (one connection, ${seconds} s), the stores' servers measured in turn within each run."
  echo
  printf '| request |'; for s in "${sizes[@]}"; do printf ' %s notes |' "$s"; done; printf ' %s / %s |\n' "$largest" "$smallest"
  printf '|---|'; for _ in "${sizes[@]}"; do printf -- '---|'; done; printf -- '---|\n'
  for query in "${queries[@]}"; do
    printf '| %s |' "${label[$query]}"
    for s in "${sizes[@]}"; do
      # shellcheck disable=SC2086
      printf ' %.2f ms |' "$(median ${samples[$query-$s]})"
    done
    # shellcheck disable=SC2086
    r=$(ratio "$(median ${samples[$query-$largest]})" "$(median ${samples[$query-$smallest]})")
    case $query in first|cursor|rare) printf ' %s× (target ≤ 1.5×) |\n' "$r" ;; *) printf ' %s× (no target) |\n' "$r" ;; esac
  done
  echo "<!-- notes:end -->"
)
bench_stop_sampler
bench_write_section notes "$section"
