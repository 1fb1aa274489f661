#!/usr/bin/env bash
# Measures a peer fetch: the 16 MB corpus original fetched by `attach fetch` from a peer's
# `attach serve`, against `curl -o file` downloading the same file from nginx on loopback.
# Server A holds the photo (`attach import --no-thumbnails`); each run makes a fresh store B,
# pulls A's records into it (`attach sync pull`, untimed), then times
# `attach fetch --all --store B --peer http://A`. The curl runs alternate with the attach runs.
# Writes the sync section of BENCHMARKS.md (between <!-- sync:begin --> and <!-- sync:end -->,
# the rest of the file is kept) and prints the table to stdout; progress goes to stderr.
# Called by `make bench`; installs nginx and curl with apt-get when missing (as root).
#
# Environment:
#   ATTACH_CORPUS  corpus folder (default .cache/corpus; needs special/large-16mb.jpg)
#   ATTACH_BIN     attach binary (default .build/release/attach)
#   BENCH_RUNS     timed runs per measure (default 5)
#   BENCH_SMOKE=1  one run (CI smoke pass; not a benchmark)
#   BENCH_OUT      file to write (default BENCHMARKS.md at the repo root)
#   TMPDIR         where the scratch folders go (default /tmp); its filesystem is what is measured
# Shared helpers (markers, timing, statistics, the report's header): scripts/bench-lib.sh.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"

# --- inputs ----------------------------------------------------------------------------------
[ -d "$corpus" ] || die "corpus not found at $corpus (run \`make corpus\`, or set ATTACH_CORPUS)"
corpus=$(cd "$corpus" && pwd)
large=$corpus/special/large-16mb.jpg
[ -f "$large" ] || die "corpus file $large is missing (run \`make corpus\`)"
[ -x "$bin" ] || die "attach binary not found or not executable at $bin (run \`swift build -c release --product attach\`, or set ATTACH_BIN)"
if [ "$smoke" = 1 ]; then
  runs=1
else
  case $runs in ''|*[!0-9]*|0) die "BENCH_RUNS must be a positive integer, got '$runs'" ;; esac
fi
large_bytes=$(stat -c %s "$large")
large_hash=$(sha256sum "$large" | cut -d' ' -f1)

need=()
command -v nginx > /dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v curl > /dev/null || need+=(curl)
# shellcheck source=scripts/apt-lib.sh
. "$repo/scripts/apt-lib.sh"
apt_install "for the benchmark" "${need[@]}" || die "install the packages above, then run again"
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

# The output must be writable, with one sync section or none: checked now, not after the runs.
bench_check_output sync

# --- scratch and servers (stopped on exit, also on Ctrl-C) -----------------------------------
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  chmod -R u+w "$scratch" 2> /dev/null || true
  rm -rf "$scratch"
}
bench_scratch

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { # wait_for URL WHAT LOG: up to 10 s for URL to answer
  local _
  for _ in $(seq 1 100); do curl -fs -o /dev/null "$1" 2> /dev/null && return 0; sleep 0.1; done
  die "$2 did not start: $(cat "$3" 2> /dev/null)"
}

# Server A: the photo, imported without thumbnails, served at full speed on loopback.
store_a=$scratch/A
attach_quiet init --store "$store_a"
note=$("$bin" note add "Synced photo" --store "$store_a")
attach_quiet import --no-thumbnails --store "$store_a" --note "$note" -- "$large"
blob_a=$store_a/blobs/sha256/${large_hash:0:2}/${large_hash:2:2}/$large_hash
[ -f "$blob_a" ] || die "the blob of $large is not at $blob_a"
port_a=$(free_port)
"$bin" serve --store "$store_a" --port "$port_a" --log-level warning > "$scratch/serve.out" 2> "$scratch/serve.log" &
pids+=($!)
url_a=http://127.0.0.1:$port_a
wait_for "$url_a/health" "attach serve" "$scratch/serve.log"

# nginx: the same bytes from a file, on loopback.
mkdir "$scratch/www"
cp -- "$large" "$scratch/www/large-16mb.jpg"
nginx_port=$(free_port)
cat > "$scratch/nginx.conf" << NGINX
worker_processes auto;
pid $scratch/nginx.pid;
error_log $scratch/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  types { image/jpeg jpg; }
  server { listen 127.0.0.1:$nginx_port; root $scratch/www; }
}
NGINX
"$nginx_bin" -c "$scratch/nginx.conf" -p "$scratch" -g 'daemon off; user root;' 2> "$scratch/nginx.out" &
pids+=($!)
url_nginx=http://127.0.0.1:$nginx_port/large-16mb.jpg
wait_for "$url_nginx" nginx "$scratch/nginx-error.log"

# --- timed runs (attach and curl alternate, so drift over time affects both alike) ------------
declare -a t_att t_curl
say "$large: $large_bytes bytes; binary $bin; $runs run(s); scratch $scratch"
for ((r = 1; r <= runs; r++)); do
  b=$scratch/B; fresh "$b"
  attach_quiet init --store "$b"
  attach_quiet sync pull "$url_a" --store "$b"
  warm "$blob_a"
  t0=$(now); attach_quiet fetch --all --store "$b" --peer "$url_a"; t1=$(now)
  t_att+=("$(elapsed "$t0" "$t1")")
  fetched=$b/blobs/sha256/${large_hash:0:2}/${large_hash:2:2}/$large_hash
  cmp -s "$large" "$fetched" || die "after attach fetch, store B does not hold the bytes of $large at $fetched"
  say "run $r/$runs  attach fetch from a peer: ${t_att[-1]} s"

  d=$scratch/download; fresh "$d"; mkdir "$d"
  warm "$scratch/www/large-16mb.jpg"
  t0=$(now); curl -fsS -o "$d/large-16mb.jpg" "$url_nginx"; t1=$(now)
  t_curl+=("$(elapsed "$t0" "$t1")")
  cmp -s "$large" "$d/large-16mb.jpg" || die "curl did not download the bytes of $large"
  say "run $r/$runs  curl -o from nginx: ${t_curl[-1]} s"
done
fresh "$scratch/B"; fresh "$scratch/download"

# --- the report ------------------------------------------------------------------------------
m_att=$(median "${t_att[@]}"); m_curl=$(median "${t_curl[@]}")
x=$(ratio "$m_att" "$m_curl")
mibs() { awk -v b="$large_bytes" -v s="$1" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }
table=$(
  printf '| measure | runs | min | median | max | ratio to curl |\n'
  printf '|---|---:|---:|---:|---:|---:|\n'
  row_time "curl -o file from nginx: large-16mb.jpg (wall time)" "" "${t_curl[@]}"
  row_time "attach fetch --all from a peer's attach serve: large-16mb.jpg (wall time)" "$m_curl" "${t_att[@]}"
)
section=$(
  echo '<!-- sync:begin -->'
  echo '## Sync: fetching a 16 MB original from a peer vs `curl` from nginx'
  echo
  if [ "$smoke" = 1 ]; then
    echo "**Smoke pass (BENCH_SMOKE=1): one run. These numbers check that the benchmark works; they are not a benchmark.**"
    echo
  fi
  bench_header
  echo "- Tools: nginx $("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///'), $(curl --version | head -1 | cut -d' ' -f1-2); attach serve, nginx and the clients share the machine, over loopback"
  echo "- Input: \`special/large-16mb.jpg\` from the corpus ($large_bytes bytes)"
  echo "- Reproduce: \`make bench\` (builds the release binary, then runs \`scripts/bench-sync.sh\`; BENCH_RUNS=N sets the number of runs)"
  echo
  echo "Server A (\`attach serve\`) holds the photo, imported with \`attach import --no-thumbnails\`. Each run makes a fresh store B (\`attach init\`) and pulls A's records into it (\`attach sync pull\`: the note and the attachment record, no bytes), both untimed; then one \`attach fetch --all --store B --peer http://A\` is timed with \`date +%s.%N\`. It streams \`GET /blobs/sha256/<hash>\` from A into B's \`tmp/\` while hashing, checks the SHA-256, fsyncs, renames the blob into place and marks it present in B's catalog, so the bytes are verified and durable when it exits; the time includes starting the process and opening the catalog. Against it, \`curl -fsS -o file\` downloads the same bytes from nginx (sendfile, access log off), with no verification and no fsync. Before each timed command the source file is read once (untimed) so that both servers send from the page cache. attach and curl runs alternate; after each, the bytes are compared with the original."
  echo
  echo "$table"
  echo
  echo "attach fetch took **${x}×** the time of curl (median $(printf '%.3f' "$m_att") s, about $(mibs "$m_att") MiB/s, against $(printf '%.3f' "$m_curl") s, about $(mibs "$m_curl") MiB/s)."
  echo '<!-- sync:end -->'
)

bench_write_section sync "$section"
echo "$table"
