#!/usr/bin/env bash
# Measures how soon a change made on one server is visible on a peered server: a note created on
# A through the API (`POST /api/notes`), then B's `GET /api/notes/ID` asked every 2 ms over one
# kept-alive connection until it answers 200. B syncs from A with the default settings (its
# request held by A until there is a change: `--sync-wait 25`); the reference is a server C
# syncing from the same A by polling (`--sync-wait 0`, every `--sync-interval`, default 5 s), as
# every server did before the long poll. Live and polling runs alternate.
# Writes the live section of BENCHMARKS.md (between <!-- live:begin --> and <!-- live:end -->,
# the rest of the file is kept) and prints the table to stdout; progress goes to stderr.
# Called by `make bench`.
#
# Environment:
#   ATTACH_BIN     attach binary (default .build/release/attach)
#   BENCH_RUNS     timed changes per server (default 20; the reference costs about 2.5 s each)
#   BENCH_SMOKE=1  two changes each (CI smoke pass; not a benchmark)
#   BENCH_OUT      file to write (default BENCHMARKS.md at the repo root)
# Shared helpers (markers, statistics, the report's header): scripts/bench-lib.sh.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"

runs=${BENCH_RUNS:-20}
[ -x "$bin" ] || die "attach binary not found or not executable at $bin (run \`swift build -c release --product attach\`, or set ATTACH_BIN)"
if [ "$smoke" = 1 ]; then
  runs=2
else
  case $runs in ''|*[!0-9]*|0) die "BENCH_RUNS must be a positive integer, got '$runs'" ;; esac
fi
bench_check_output live

bench_scratch  # the servers below are stopped on exit (bench-lib's cleanup), also on Ctrl-C

serve() { # serve NAME PORT ARGS...: starts attach serve on a fresh store; waits until it answers
  local name=$1 port=$2 _; shift 2
  attach_quiet init --store "$scratch/$name"
  "$bin" serve --store "$scratch/$name" --port "$port" --log-level warning "$@" > "$scratch/$name.out" 2> "$scratch/$name.log" &
  pids+=($!)
  for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/health" 2> /dev/null && return 0; sleep 0.1; done
  die "attach serve ($name) did not start: $(cat "$scratch/$name.log")"
}
port_a=$(free_port); port_b=$(free_port); port_c=$(free_port)
serve A "$port_a"
serve B "$port_b" --peer "http://127.0.0.1:$port_a"
serve C "$port_c" --peer "http://127.0.0.1:$port_a" --sync-wait 0
sleep 6  # every peer has finished its first round

say "binary $bin; $runs change(s) per server; scratch $scratch"
results=$(python3 - "$port_a" "$port_b" "$port_c" "$runs" << 'PY'
import http.client, json, sys, time
port_a, port_b, port_c, runs = (int(v) for v in sys.argv[1:])
a = http.client.HTTPConnection("127.0.0.1", port_a)
def create(title):
    a.request("POST", "/api/notes", body=json.dumps({"title": title}), headers={"Content-Type": "application/json"})
    response = a.getresponse()
    body = response.read()
    assert response.status == 201, (response.status, body)
    return json.loads(body)["id"]
def seen(port, note):
    c = http.client.HTTPConnection("127.0.0.1", port)
    while True:
        c.request("GET", "/api/notes/" + note)
        response = c.getresponse()
        response.read()
        if response.status == 200:
            return
        time.sleep(0.002)
for run in range(runs):
    for name, port in (("live", port_b), ("polling", port_c)):
        start = time.monotonic()
        note = create(f"{name} {run}")
        seen(port, note)
        took = time.monotonic() - start
        print(name, f"{took:.6f}")
        print(f"bench: change {run + 1}/{runs} {name}: {took * 1000:.1f} ms", file=sys.stderr)
PY
)
read -ra live <<< "$(awk '$1 == "live" { printf "%s ", $2 }' <<< "$results")"
read -ra polling <<< "$(awk '$1 == "polling" { printf "%s ", $2 }' <<< "$results")"
live_median=$(median "${live[@]}")
polling_median=$(median "${polling[@]}")
table=$(
  printf '| measure | changes | min | median | max | ratio to polling |\n'
  printf '|---|---:|---:|---:|---:|---:|\n'
  row_time "a note created on A, visible on C (polling, --sync-wait 0, every 5 s)" "" "${polling[@]}"
  row_time "a note created on A, visible on B (default settings: held request)" "$polling_median" "${live[@]}"
)
ms() { awk -v s="$1" 'BEGIN { printf "%.0f", s * 1000 }'; }
section=$(
  echo '<!-- live:begin -->'
  echo '## Live sync: how soon a change reaches a peer'
  echo
  if [ "$smoke" = 1 ]; then
    echo "**Smoke pass (BENCH_SMOKE=1): two changes. These numbers check that the benchmark works; they are not a benchmark.**"
    echo
  fi
  bench_header
  echo "- Reproduce: \`make bench\` (builds the release binary, then runs \`scripts/bench-live.sh\`; BENCH_RUNS=N sets the number of changes)"
  echo
  echo "Three \`attach serve\` on loopback: A, B syncing from A with the default settings (each sync request is held by A until its change feed moves, \`--sync-wait 25\`), and C syncing from A by polling (\`--sync-wait 0\`: a round every \`--sync-interval\`, 5 s by default, as before the long poll). A note is created on A (\`POST /api/notes\`), then the peer's \`GET /api/notes/ID\` is asked every 2 ms over one kept-alive connection until it answers 200; the time runs from just before the POST. Changes for B and for C alternate."
  echo
  echo "$table"
  echo
  echo "- With the default settings a change is visible on the peer after **$(ms "$live_median") ms** (median of ${#live[@]}; target ≤ 300 ms: $(awk -v x="$live_median" 'BEGIN { print (x <= 0.3) ? "met" : "missed" }')); polling took $(ms "$polling_median") ms (a change waits for the next round, up to the 5 s interval; the runs alternate, so each change is made about one B measurement after C's previous round)."
  echo '<!-- live:end -->'
)
bench_write_section live "$section"
echo "$table"
