#!/usr/bin/env bash
# Runs the package-benchmark micro-benchmarks (Benchmarks/StoreBenchmarks: SHA-256, ingest,
# thumbnails, memory-cache hit) with `swift package benchmark`, which builds them in release
# mode, and writes their results into BENCHMARKS.md between <!-- micro:begin --> and
# <!-- micro:end --> (the rest of the file is kept). The tables also go to stdout; the build
# and progress go to stderr. Called by `make bench` and `make bench-smoke`.
#
# Environment:
#   ATTACH_CORPUS  corpus folder (default .cache/corpus; needs special/seed-3.7mb.jpg)
#   BENCH_SMOKE=1  one iteration of each benchmark, no warm-up (CI smoke pass; not a benchmark),
#                  run straight from the debug build (BENCH_MICRO_BIN, default
#                  .build/debug/StoreBenchmarks, which `swift build` makes): the runner executes
#                  every benchmark when started without the plugin, in seconds, where the
#                  plugin's release build took CI ten minutes. Not through the plugin in debug:
#                  package-benchmark 1.38.1 then preloads its release-built malloc interposer into
#                  a benchmark that links the debug-built one, and every benchmark dies with
#                  SIGSEGV (the two interposers' malloc call each other until the stack ends).
#                  The section written says which benchmarks ran and holds no figures.
#   BENCH_OUT      file to write (default BENCHMARKS.md at the repo root)
#   SWIFT          the swift driver (default swift)
#   TMPDIR         where the scratch stores go (default /tmp); its filesystem is what ingest measures
set -euo pipefail

say() { printf 'bench-micro: %s\n' "$*" >&2; }
die() { printf 'bench-micro: error: %s\n' "$*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${ATTACH_CORPUS:-$repo/.cache/corpus}
out=${BENCH_OUT:-$repo/BENCHMARKS.md}
smoke=${BENCH_SMOKE:-0}
swift=${SWIFT:-swift}
begin='<!-- micro:begin -->'
end='<!-- micro:end -->'
# Every benchmark the target registers; a run missing one has failed.
expected=(
  "SHA-256, 16 MiB buffer"
  "Ingest 3.7 MB JPEG, same content (dedup)"
  "Ingest 3.7 MB JPEG, distinct content (write + fsync)"
  "Thumbnail 200 px, 12 MP baseline JPEG"
  "Thumbnail 200 px, 12 MP progressive JPEG"
  "Thumbnail memory-cache hit, store.thumbnail(for:)"
  "Catalog read, store.attachment(_:)"
)


# --- inputs (checked before the long build) ----------------------------------------------------
[ -d "$corpus" ] || die "corpus not found at $corpus (run \`make corpus\`, or set ATTACH_CORPUS)"
corpus=$(cd "$corpus" && pwd)
[ -f "$corpus/special/seed-3.7mb.jpg" ] || die "corpus file $corpus/special/seed-3.7mb.jpg is missing (run \`make corpus\`)"
export ATTACH_CORPUS=$corpus BENCH_SMOKE=$smoke

count_markers() { # prints "BEGINS ENDS" for file $1
  printf '%s %s\n' "$(grep -cxF "$begin" "$1" || true)" "$(grep -cxF "$end" "$1" || true)"
}
if [ -f "$out" ]; then
  [ -w "$out" ] || die "$out is not writable"
  read -r begins ends < <(count_markers "$out")
  if ! { [ "$begins" = 0 ] && [ "$ends" = 0 ]; } && ! { [ "$begins" = 1 ] && [ "$ends" = 1 ]; }; then
    die "$out has $begins '$begin' and $ends '$end' lines; expected one of each (or none). Fix the markers; nothing was run."
  fi
else
  [ -w "$(dirname "$out")" ] || die "cannot create $out: its folder is not writable"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/attach-bench-micro.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# --- the run -----------------------------------------------------------------------------------
# Smoke: the debug build's runner, started without the plugin, reports "Debug results for NAME:".
# Otherwise the plugin builds in release and prints markdown tables naming each benchmark. The
# plugin writes nothing into the package (results go to stdout), so it needs no
# --allow-writing-to-package-directory; --target keeps it to StoreBenchmarks (it takes every
# executable target in a folder named Benchmarks for a benchmark).
if [ "$smoke" = 1 ]; then
  runner=${BENCH_MICRO_BIN:-$repo/.build/debug/StoreBenchmarks}
  [ -x "$runner" ] || die "$runner is missing (run \`swift build\`, or set BENCH_MICRO_BIN)"
  say "corpus $corpus; smoke: running every benchmark once from the debug build $runner"
  run=("$runner" --quiet true) result_line='results for %s:'
else
  say "corpus $corpus; building the benchmarks (release) and running them (a first build takes minutes)"
  run=("$swift" package benchmark --target StoreBenchmarks --format markdown --no-progress) result_line='%s'
fi
status=0
(cd "$repo" && "${run[@]}") > "$scratch/run.md" || status=$?
# package-benchmark exits 0 when a benchmark's setup or body reported an error: look for that too.
if [ "$status" != 0 ] || grep -q 'benchmarks failed' "$scratch/run.md"; then
  cat "$scratch/run.md" >&2
  die "${run[0]} failed (exit status $status); nothing was written"
fi
for name in "${expected[@]}"; do
  # shellcheck disable=SC2059 # the format is ours
  grep -qF "$(printf "$result_line" "$name")" "$scratch/run.md" || { cat "$scratch/run.md" >&2; die "no result for '$name'; nothing was written"; }
done
if [ "$smoke" = 1 ]; then
  results=$(echo '### StoreBenchmarks (smoke: ran once each, debug build, no figures)'; echo; printf -- '- %s\n' "${expected[@]}")
else
  # Keep the tables from the target's heading on (the host line before it repeats "Machine"
  # below), one heading level down so that they nest under this section's heading.
  results=$(awk '/^## StoreBenchmarks$/ { on = 1 } on' "$scratch/run.md" | sed 's/^#/##/')
  [ -n "$results" ] || { cat "$scratch/run.md" >&2; die "swift package benchmark printed no '## StoreBenchmarks' tables"; }
fi

# --- the report --------------------------------------------------------------------------------
if commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null); then
  if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no -- . ':!BENCHMARKS.md' 2>/dev/null)" ]; then
    commit="$commit (with uncommitted changes)"
  fi
else
  commit=uncommitted
fi
scratch_fs=$(stat -f -c %T "$scratch")
section=$(
  echo "$begin"
  echo '## Micro-benchmarks (package-benchmark)'
  echo
  if [ "$smoke" = 1 ]; then
    echo '**Smoke pass (BENCH_SMOKE=1): each benchmark ran once from the debug build, to check that it works; no figures.**'
    echo
  fi
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- Machine: $(nproc) CPUs, $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM (free -g), $(uname -sr), scratch filesystem $scratch_fs"
  echo "- Commit: $commit; $("$swift" --version 2>/dev/null | head -n 1); $([ "$smoke" = 1 ] && echo debug || echo release) build"
  echo '- Reproduce: `make bench` (all benchmarks) or `swift package benchmark --target StoreBenchmarks`; `BENCH_SMOKE=1 make bench-smoke` for one iteration of each'
  echo
  echo 'Source: `Benchmarks/StoreBenchmarks`. Each benchmark runs in its own process after one untimed warm-up iteration, until 5–10 s or its iteration cap; time and malloc counts cover only the measured call (malloc counts include every thread of the process); peak resident memory is the whole process.'
  echo
  echo '- **SHA-256, 16 MiB buffer**: `SHA256.hash(data:)` (swift-crypto) over a buffer in memory; `bytes/s` is the buffer size over the time of that call.'
  echo '- **Ingest 3.7 MB JPEG**: `addAttachment(to:fromFile:)` of `special/seed-3.7mb.jpg` (4032×3024) into a fresh store under `$TMPDIR`, a new note each iteration (created untimed), thumbnails off. *Same content*: setup stores the photo once, so each import copies and hashes it into a staging file and finds the blob present (no fsync). *Distinct content*: the file is a copy with the iteration number in its last 8 bytes (rewritten untimed), so each import takes the full path: write, fsync, rename, directory fsync, catalog commit.'
  echo '- **Thumbnail 200 px**: `ThumbnailRenderer.render(fileAt:maxPixelSize: 200)` on the calling thread (libvips with one thread, as the store runs it). *Baseline*: the seed as it is. *Progressive*: the same picture re-coded progressive by `jpegtran -progressive` in setup (lossless; the corpus'"'"'s own `progressive.jpg` is only 4.9 MP).'
  echo '- **Memory-cache hit**: `store.thumbnail(for:)` on an attachment whose 200 px thumbnail is already in the memory cache; includes the catalog read of the attachment that every request makes. **Catalog read** is that read alone (`store.attachment(_:)`), for comparison.'
  echo '- **Catalog read against its target of 40 µs** (issue 13): the p50 in its table below. The read itself is a few microseconds of SQLite on a compiled statement (each connection reuses its statements since the group-commit change; the median went from 221 µs and 512 allocations to about 125 µs and 99). The rest is thread hand-offs: the read never runs on Swift'\''s cooperative pool. GRDB'\''s async read went through its queues (`perf record`: the kernel'\''s `finish_task_switch` and `_raw_spin_unlock_irqrestore` about 30 % of the samples, threads named after three Dispatch QoS classes); the store now runs GRDB'\''s synchronous read on a catalog-read thread of its own (one per core), where the reader queue runs it in place: one hop there and one back, 73 µs → about 30 µs at the median on this machine. Its times are bimodal (about 28 or about 50 µs), by whether the read thread was still awake.'
  echo
  echo "$results"
  echo "$end"
)

if [ -f "$out" ]; then
  read -r begins ends < <(count_markers "$out")
  if [ "$begins" = 0 ] && [ "$ends" = 0 ]; then
    { cat "$out"; echo; echo "$section"; } > "$scratch/out.md"
  elif [ "$begins" = 1 ] && [ "$ends" = 1 ]; then
    printf '%s\n' "$section" > "$scratch/section.md"
    awk -v sec="$scratch/section.md" -v b="$begin" -v e="$end" '
      $0 == b { while ((getline line < sec) > 0) print line; skip = 1; next }
      $0 == e { skip = 0; next }
      !skip { print }' "$out" > "$scratch/out.md"
  else
    die "$out changed while the benchmarks ran: its micro markers are no longer one of each (or none). Left unchanged."
  fi
  cat "$scratch/out.md" > "$out"
else
  { echo '# Benchmarks'; echo; echo "$section"; } > "$out"
fi

say "wrote the micro-benchmark section of $out"
echo "$results"
