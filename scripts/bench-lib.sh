# Shared by the benchmark scripts (scripts/bench-*.sh); sourced, never run. The script sets
# `repo` (the package root) and `set -euo pipefail` first, then sources this file, which reads
# the environment they all take:
#   ATTACH_CORPUS  corpus folder (default .cache/corpus; needs fifty/ and special/seed-3.7mb.jpg)
#   ATTACH_BIN     attach binary (default .build/release/attach)
#   BENCH_RUNS     timed runs per measure (default 5)
#   BENCH_SMOKE=1  one run on the first 5 photos (CI smoke pass; not a benchmark)
#   BENCH_OUT      file to write (default BENCHMARKS.md at the repo root)
#   TMPDIR         where the scratch folders go (default /tmp); its filesystem is what is measured
#   BENCH_BINARY_NOTE  optional words on where the binary came from, added to the Commit line
#                  (e.g. "built from a clean export of 9f4864d")
# Each script owns one section of BENCH_OUT, between <!-- NAME:begin --> and <!-- NAME:end -->.

corpus=${ATTACH_CORPUS:-$repo/.cache/corpus}
bin=${ATTACH_BIN:-$repo/.build/release/attach}
out=${BENCH_OUT:-$repo/BENCHMARKS.md}
smoke=${BENCH_SMOKE:-0}
runs=${BENCH_RUNS:-5}

say() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

# --- inputs ----------------------------------------------------------------------------------
# bench_large_inputs: for the transfer benchmarks (bench-sync, bench-push): checks the corpus's
# 16 MB photo, the binary, BENCH_RUNS and BENCH_LARGE_MB; sets corpus (absolute), large (the
# photo), runs and large_mb (the size of the random file; the smoke pass: one run, 32 MiB).
bench_large_inputs() {
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
  large_mb=${BENCH_LARGE_MB:-256}
  if [ "$smoke" = 1 ]; then large_mb=32; fi
  case $large_mb in ''|*[!0-9]*|0) die "BENCH_LARGE_MB must be a positive integer, got '$large_mb'" ;; esac
}

# bench_inputs: checks the corpus, the binary and BENCH_RUNS; sets corpus (absolute), seed,
# runs, count (photos per run), files (the photos), input_bytes and seed_bytes.
bench_inputs() {
  [ -d "$corpus" ] || die "corpus not found at $corpus (run \`make corpus\`, or set ATTACH_CORPUS)"
  corpus=$(cd "$corpus" && pwd)
  [ -d "$corpus/fifty" ] || die "corpus folder $corpus/fifty is missing (run \`make corpus\`)"
  seed=$corpus/special/seed-3.7mb.jpg
  [ -f "$seed" ] || die "corpus file $seed is missing (run \`make corpus\`)"
  if [ ! -x "$bin" ]; then
    die "attach binary not found or not executable at $bin (run \`swift build -c release --product attach\`, or set ATTACH_BIN)"
  fi

  if [ "$smoke" = 1 ]; then
    runs=1; count=5
  else
    case $runs in ''|*[!0-9]*|0) die "BENCH_RUNS must be a positive integer, got '$runs'" ;; esac
    count=50
  fi

  local all
  shopt -s nullglob
  all=("$corpus"/fifty/*.jpg)
  shopt -u nullglob
  if [ "$smoke" = 1 ]; then
    [ "${#all[@]}" -ge "$count" ] || die "$corpus/fifty holds ${#all[@]} JPEGs; the smoke pass needs at least $count"
  else
    [ "${#all[@]}" -eq 50 ] || die "$corpus/fifty holds ${#all[@]} JPEGs, expected 50 (rebuild the corpus: rm -rf $corpus && make corpus)"
  fi
  files=("${all[@]:0:count}")
  input_bytes=$(stat -c %s "${files[@]}" | awk '{ s += $1 } END { print s }')
  seed_bytes=$(stat -c %s "$seed")
}

# bench_require_s3: stops unless the S3 store's variables are set (scripts/with-services.sh sets
# them); defaults S3_REGION and exports the credentials for attach.
bench_require_s3() {
  local v
  for v in S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET; do
    [ -n "${!v:-}" ] || die "$v is not set: run under scripts/with-services.sh (\`make bench\` does), or load the S3 store's env lines first"
  done
  export S3_ACCESS_KEY S3_SECRET_KEY S3_REGION=${S3_REGION:-us-east-1}
}

# --- the output's markers --------------------------------------------------------------------
count_markers() { # count_markers NAME FILE: prints "BEGINS ENDS"
  printf '%s %s\n' "$(grep -c "^<!-- $1:begin -->\$" "$2" || true)" "$(grep -c "^<!-- $1:end -->\$" "$2" || true)"
}

# bench_check_output NAME: the output must be writable, with one NAME section or none. Called
# before any run, so that a bad file stops the benchmark before it spends minutes.
bench_check_output() {
  local name=$1 begins ends
  if [ -f "$out" ]; then
    [ -w "$out" ] || die "$out is not writable"
    read -r begins ends < <(count_markers "$name" "$out")
    if ! { [ "$begins" = 0 ] && [ "$ends" = 0 ]; } && ! { [ "$begins" = 1 ] && [ "$ends" = 1 ]; }; then
      die "$out has $begins '<!-- $name:begin -->' and $ends '<!-- $name:end -->' lines; expected one of each (or none). Fix the markers; nothing was run."
    fi
  else
    [ -w "$(dirname "$out")" ] || die "cannot create $out: its folder is not writable"
  fi
}

# bench_write_section NAME SECTION: replaces the NAME section of the output (markers included
# in SECTION), or appends it when the file has none, or creates the file. The rest is kept.
bench_write_section() {
  local name=$1 section=$2 begins ends
  if [ -f "$out" ]; then
    read -r begins ends < <(count_markers "$name" "$out")
    if [ "$begins" = 0 ] && [ "$ends" = 0 ]; then
      { cat "$out"; echo; echo "$section"; } > "$scratch/out.md"
    elif [ "$begins" = 1 ] && [ "$ends" = 1 ]; then
      printf '%s\n' "$section" > "$scratch/section.md"
      awk -v sec="$scratch/section.md" -v begin="<!-- $name:begin -->" -v end="<!-- $name:end -->" '
        $0 == begin { while ((getline line < sec) > 0) print line; skip = 1; next }
        $0 == end { skip = 0; next }
        !skip { print }' "$out" > "$scratch/out.md"
    else
      die "$out changed while the benchmark ran: its $name markers are no longer one of each (or none). Left unchanged."
    fi
    cat "$scratch/out.md" > "$out"
  else
    { echo '# Benchmarks'; echo; echo "$section"; } > "$out"
  fi
  say "wrote the $name section of $out"
}

# --- what a script needs --------------------------------------------------------------------
# bench_need_binaries: stops unless attach and attach-bench are built (bench_bin: attach-bench).
bench_need_binaries() {
  [ -x "$bin" ] || die "attach binary not found at $bin (run \`swift build -c release --product attach\`)"
  [ -x "$bench_bin" ] || die "attach-bench not found at $bench_bin (run \`swift build -c release --product attach-bench\`)"
}
# bench_need_commands COMMAND=PACKAGE...: installs the package of each command that is missing.
bench_need_commands() {
  local need=() spec
  for spec in "$@"; do command -v "${spec%%=*}" > /dev/null || need+=("${spec#*=}"); done
  # shellcheck source=scripts/apt-lib.sh
  . "$repo/scripts/apt-lib.sh"
  apt_install "for the benchmark" ${need[@]+"${need[@]}"} || die "install the packages above, then run again"
}

# --- latency of requests to stores of several sizes -------------------------------------------
# bench_wrk_latencies RUN NAME...: for each NAME and each size in `sizes`, wrk's median latency
# (one connection, `seconds` long) of the request `path NAME SIZE` (a function of the script)
# to `url[SIZE]`, appended to `samples[NAME-SIZE]`; `label[NAME]` names it in the progress.
bench_wrk_latencies() {
  local run=$1 name size; shift
  for name in "$@"; do
    for size in "${sizes[@]}"; do
      say "run $run of $runs: ${label[$name]}, $size notes (${seconds}s)"
      wrk -t1 -c1 -d"${seconds}s" --latency "${url[$size]}$(path "$name" "$size")" > "$scratch/wrk.txt"
      samples[$name-$size]="${samples[$name-$size]:-} $(wrk_p50 "$scratch/wrk.txt")"
    done
  done
}

# --- scratch ---------------------------------------------------------------------------------
# bench_scratch: makes the scratch folder (sets scratch), removed on exit, also on Ctrl-C.
# Also samples, every 2 s, the 1-minute load average and the CPU counters of /proc/stat into
# $scratch/.loadavg ("LOAD BUSY_TICKS ALL_TICKS") for the report's header; the sampler is stopped
# on exit before `cleanup` (a script may define its own cleanup) removes the scratch folder.
bench_scratch() {
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/attach-bench.XXXXXX")
  load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
  (
    while [ -d "$scratch" ] && kill -0 "$$" 2> /dev/null; do
      read -r l _ < /proc/loadavg
      read -r _ u n s id io irq sirq st _ < /proc/stat
      echo "$l $((u + n + s + irq + sirq + st)) $((u + n + s + id + io + irq + sirq + st))" >> "$scratch/.loadavg" 2> /dev/null || exit 0
      sleep 2
    done
  ) > /dev/null 2>&1 &
  sampler_pid=$!
  trap 'bench_stop_sampler; cleanup' EXIT
  trap 'exit 130' INT TERM
}
bench_stop_sampler() {
  if [ -n "${sampler_pid:-}" ]; then
    kill "$sampler_pid" 2> /dev/null || true
    wait "$sampler_pid" 2> /dev/null || true
    sampler_pid=
  fi
}
# The servers a script starts in the background: their pids go into `pids`, and the default
# cleanup stops them (and waits for them) before removing the scratch folder.
pids=()
bench_stop_servers() {
  local pid
  for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2> /dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2> /dev/null || true; done
}
cleanup() {
  bench_stop_servers
  chmod -R u+w "$scratch" 2>/dev/null || true
  rm -rf "$scratch"
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# bench_serve STORE NAME: starts `attach serve` on STORE on a free port (its pid in `pids`, its
# output in $scratch/serve-NAME.out and .log), waits until it answers /health, and sets
# `served_url` to its address.
bench_serve() {
  local port
  port=$(free_port)
  "$bin" serve --store "$1" --port "$port" --log-level warning > "$scratch/serve-$2.out" 2> "$scratch/serve-$2.log" &
  pids+=($!)
  served_url=http://127.0.0.1:$port
  for _ in $(seq 1 100); do curl -fs "$served_url/health" > /dev/null 2>&1 && break; sleep 0.1; done
  curl -fs "$served_url/health" > /dev/null || die "attach serve did not start: $(cat "$scratch/serve-$2.log")"
}

# --- timing ----------------------------------------------------------------------------------
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
fresh() { # remove a previous run's folder, untimed, and let its deletion reach the disk
  if [ -e "$1" ]; then chmod -R u+w "$1"; rm -rf "$1"; fi
  sync
}
warm() { cat "$@" > /dev/null; } # untimed: inputs come from the page cache on both sides

attach_quiet() { # runs attach with its output in a log; shows the log and stops on failure
  local log=$scratch/attach.log
  if ! "$bin" "$@" > "$log" 2>&1; then
    cat "$log" >&2
    die "attach $1 failed (binary $bin)"
  fi
}

# --- statistics ------------------------------------------------------------------------------
# summary V...: prints "min median max" (median of an even count: mean of the middle two).
summary() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.10g %.10g %.10g\n", v[1], m, v[NR] }'
}
median() { summary "$@" | cut -d' ' -f2; }
# wrk_p50 FILE: the median latency of a `wrk --latency` report, in milliseconds.
wrk_p50() { awk '$1 == "50%" { v = $2 }
  END { if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else if (v ~ /s$/) v = v * 1000; printf "%.3f\n", v }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

row_time() { # row_time LABEL REFERENCE_MEDIAN|"" VALUES...
  local label=$1 ref=$2; shift 2
  local min med max r
  read -r min med max < <(summary "$@")
  if [ -n "$ref" ]; then r="$(ratio "$med" "$ref")×"; else r="1.00× (reference)"; fi
  printf '| %s | %d | %.3f s | %.3f s | %.3f s | %s |\n' "$label" "$#" "$min" "$med" "$max" "$r"
}

# --- the report ------------------------------------------------------------------------------
# bench_header: the Date, Machine and Commit lines that open every section.
bench_header() {
  local mem fstype mnt commit version binshown build
  mem=$(free -g | awk '/^Mem:/ { print $2 }')
  fstype=$(stat -f -c %T "$scratch")
  if command -v findmnt > /dev/null && mnt=$(findmnt -n -o FSTYPE -T "$scratch" 2>/dev/null) && [ -n "$mnt" ] && [ "$mnt" != "$fstype" ]; then
    fstype="$fstype (findmnt: $mnt)"
  fi
  if commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null); then
    if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no -- . ':!BENCHMARKS.md' 2>/dev/null)" ]; then
      commit="$commit (with uncommitted changes)"
    fi
  else
    commit=uncommitted
  fi
  version=$("$bin" --version 2>/dev/null || echo unknown)
  case $bin in
    "$repo"/*) binshown=${bin#"$repo"/} ;;
    *) binshown=$bin ;;
  esac
  case $bin in
    */debug/*) build="debug build" ;;
    */release/*) build="release build" ;;
    *) build="build type unknown" ;;
  esac
  # How the binary was linked, read from the binary itself: whether the Swift runtime is in it
  # (RELEASE_FLAGS=--static-swift-stdlib) and whether its relocations are packed (DT_RELR).
  if command -v ldd > /dev/null && ! ldd "$bin" 2>/dev/null | grep -q libswiftCore; then build="$build, Swift runtime linked in"; fi
  if command -v readelf > /dev/null && readelf -d "$bin" 2>/dev/null | grep -q '(RELR)'; then build="$build, packed relocations"; fi
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- Machine: $(nproc) CPUs, ${mem} GiB RAM (free -g), $(uname -sr), scratch filesystem $fstype"
  echo "- Commit: $commit; attach $version ($build, \`$binshown\`${BENCH_BINARY_NOTE:+; $BENCH_BINARY_NOTE})"
  echo "- Load average (1, 5, 15 min) at the start: ${load_at_start:-unknown}; at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows both sides of a ratio, not always equally)"
  local lo hi n busy
  if [ -s "$scratch/.loadavg" ]; then
    read -r lo hi n < <(sort -g "$scratch/.loadavg" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi, NR }')
    busy=$(awk 'NR == 1 { b0 = $2; t0 = $3 } { b = $2; t = $3 } END { if (t > t0) printf "%.0f%%", 100 * (b - b0) / (t - t0); else print "unknown" }' "$scratch/.loadavg")
    echo "- During this run: load average (1 min) $lo to $hi, CPUs $busy busy ($n samples, every 2 s; both count this benchmark's own processes, and the load also counts tasks waiting on the disk)"
  fi
}
