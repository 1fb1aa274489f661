#!/usr/bin/env bash
# Measures ingest: `attach import` against `cp` + `sync` on the real-photo corpus, and the
# deduplication workload (one photo imported many times). Writes the ingest section of
# BENCHMARKS.md (between <!-- ingest:begin --> and <!-- ingest:end -->, the rest of the file is
# kept) and prints the table to stdout; progress goes to stderr. Called by `make bench`.
#
# Environment:
#   ATTACH_CORPUS  corpus folder (default .cache/corpus; needs fifty/ and special/seed-3.7mb.jpg)
#   ATTACH_BIN     attach binary (default .build/release/attach)
#   BENCH_RUNS     timed runs per measure (default 5)
#   BENCH_SMOKE=1  one run, first 5 photos, seed imported 5 times (CI smoke pass; not a benchmark)
#   BENCH_OUT      file to write (default BENCHMARKS.md at the repo root)
#   TMPDIR         where the scratch folders go (default /tmp); its filesystem is what is measured
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${ATTACH_CORPUS:-$repo/.cache/corpus}
bin=${ATTACH_BIN:-$repo/.build/release/attach}
out=${BENCH_OUT:-$repo/BENCHMARKS.md}
smoke=${BENCH_SMOKE:-0}
runs=${BENCH_RUNS:-5}

say() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

# --- inputs ----------------------------------------------------------------------------------
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
seed_times=$count

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
seed_args=()
for ((i = 0; i < seed_times; i++)); do seed_args+=("$seed"); done

# The output must be writable, with one ingest section or none: checked now, not after the runs.
count_markers() { # prints "BEGINS ENDS" for file $1
  printf '%s %s\n' "$(grep -c '^<!-- ingest:begin -->$' "$1" || true)" "$(grep -c '^<!-- ingest:end -->$' "$1" || true)"
}
if [ -f "$out" ]; then
  [ -w "$out" ] || die "$out is not writable"
  read -r begins ends < <(count_markers "$out")
  if ! { [ "$begins" = 0 ] && [ "$ends" = 0 ]; } && ! { [ "$begins" = 1 ] && [ "$ends" = 1 ]; }; then
    die "$out has $begins '<!-- ingest:begin -->' and $ends '<!-- ingest:end -->' lines; expected one of each (or none). Fix the markers; nothing was run."
  fi
else
  [ -w "$(dirname "$out")" ] || die "cannot create $out: its folder is not writable"
fi

# --- scratch ---------------------------------------------------------------------------------
scratch=$(mktemp -d "${TMPDIR:-/tmp}/attach-bench.XXXXXX")
cleanup() {
  chmod -R u+w "$scratch" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# cp's counterpart of workload (a): the seed under $seed_times names (symlinks; cp copies the
# target of a symlink named on its command line), so one `cp` writes $seed_times full copies.
mkdir "$scratch/seed-links"
for ((i = 0; i < seed_times; i++)); do ln -s "$seed" "$scratch/seed-links/seed-$(printf %02d "$i").jpg"; done
seed_links=("$scratch"/seed-links/*.jpg)

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

stat_field() { # stat_field STORE NAME: a number from `attach stats --json`
  "$bin" stats --store "$1" --json | grep -o "\"$2\":[0-9]*" | cut -d: -f2
}

# --- timed runs (cp and attach interleaved, so drift over time affects both alike) ------------
declare -a t_cp t_att t_cpseed t_attseed k_cp k_att k_cpseed k_attseed b_attseed
say "corpus $corpus: ${#files[@]} photos, $input_bytes bytes; seed $seed_bytes bytes x $seed_times"
say "binary $bin; $runs run(s); scratch $scratch"
for ((r = 1; r <= runs; r++)); do
  d=$scratch/cp; fresh "$d"; mkdir "$d"; warm "${files[@]}"
  t0=$(now); cp -- "${files[@]}" "$d/"; sync; t1=$(now)
  t_cp+=("$(elapsed "$t0" "$t1")"); k_cp+=("$(du -sk "$d" | cut -f1)")
  say "run $r/$runs  cp + sync, ${#files[@]} photos: ${t_cp[-1]} s"
  fresh "$d"

  s=$scratch/store; fresh "$s"; attach_quiet init --store "$s"; warm "${files[@]}"
  t0=$(now); attach_quiet import --store "$s" --new-note bench -- "${files[@]}"; t1=$(now)
  t_att+=("$(elapsed "$t0" "$t1")"); k_att+=("$(du -sk "$s" | cut -f1)")
  n=$(stat_field "$s" attachments); nb=$(stat_field "$s" blobs)
  [ "$n" = "${#files[@]}" ] && [ "$nb" = "${#files[@]}" ] \
    || die "store holds $n attachments and $nb blobs after importing ${#files[@]} distinct photos"
  say "run $r/$runs  attach import, ${#files[@]} photos: ${t_att[-1]} s"
  fresh "$s"

  d=$scratch/cpseed; fresh "$d"; mkdir "$d"; warm "$seed"
  t0=$(now); cp -- "${seed_links[@]}" "$d/"; sync; t1=$(now)
  t_cpseed+=("$(elapsed "$t0" "$t1")"); k_cpseed+=("$(du -sk "$d" | cut -f1)")
  say "run $r/$runs  cp + sync, seed x $seed_times: ${t_cpseed[-1]} s"
  fresh "$d"

  s=$scratch/seedstore; fresh "$s"; attach_quiet init --store "$s"; warm "$seed"
  t0=$(now); attach_quiet import --store "$s" --new-note "seed$seed_times" -- "${seed_args[@]}"; t1=$(now)
  t_attseed+=("$(elapsed "$t0" "$t1")"); k_attseed+=("$(du -sk "$s" | cut -f1)"); b_attseed+=("$(du -sb "$s" | cut -f1)")
  n=$(stat_field "$s" attachments); nb=$(stat_field "$s" blobs)
  [ "$n" = "$seed_times" ] && [ "$nb" = 1 ] \
    || die "store holds $n attachments and $nb blobs after importing the seed $seed_times times (expected $seed_times and 1)"
  say "run $r/$runs  attach import, seed x $seed_times: ${t_attseed[-1]} s"
  fresh "$s"
done

# --- statistics ------------------------------------------------------------------------------
# summary V...: prints "min median max" (median of an even count: mean of the middle two).
summary() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.10g %.10g %.10g\n", v[1], m, v[NR] }'
}
median() { summary "$@" | cut -d' ' -f2; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

row_time() { # row_time LABEL REFERENCE_MEDIAN|"" VALUES...
  local label=$1 ref=$2; shift 2
  local min med max r
  read -r min med max < <(summary "$@")
  if [ -n "$ref" ]; then r="$(ratio "$med" "$ref")×"; else r="1.00× (reference)"; fi
  printf '| %s | %d | %.3f s | %.3f s | %.3f s | %s |\n' "$label" "$#" "$min" "$med" "$max" "$r"
}
row_disk() { # row_disk LABEL REFERENCE_MEDIAN_KIB|"" KIB_VALUES...
  local label=$1 ref=$2; shift 2
  local min med max r
  read -r min med max < <(summary "$@")
  if [ -n "$ref" ]; then r="$(ratio "$med" "$ref")×"; else r="1.00× (reference)"; fi
  mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
  printf '| %s | %d | %s | %s | %s | %s |\n' "$label" "$#" "$(mib "$min")" "$(mib "$med")" "$(mib "$max")" "$r"
}

m_cp=$(median "${t_cp[@]}"); m_att=$(median "${t_att[@]}")
m_cpseed=$(median "${t_cpseed[@]}"); m_attseed=$(median "${t_attseed[@]}")
mk_cp=$(median "${k_cp[@]}"); mk_att=$(median "${k_att[@]}")
mk_cpseed=$(median "${k_cpseed[@]}"); mk_attseed=$(median "${k_attseed[@]}")
mb_attseed=$(median "${b_attseed[@]}")
# One image's footprint, measured where the stores live (same filesystem, same block size).
cp -- "$seed" "$scratch/one.jpg"; k_one=$(du -sk "$scratch/one.jpg" | cut -f1)

nphotos=${#files[@]}
table=$(
  printf '| measure | runs | min | median | max | ratio to cp + sync |\n'
  printf '|---|---:|---:|---:|---:|---:|\n'
  row_time "cp + sync: $nphotos distinct photos (wall time)" "" "${t_cp[@]}"
  row_time "attach import: $nphotos distinct photos (wall time)" "$m_cp" "${t_att[@]}"
  row_time "cp + sync: seed-3.7mb.jpg × $seed_times (wall time)" "" "${t_cpseed[@]}"
  row_time "attach import: seed-3.7mb.jpg × $seed_times, one note (wall time)" "$m_cpseed" "${t_attseed[@]}"
  row_disk "disk, cp folder: $nphotos distinct photos (du -sk)" "" "${k_cp[@]}"
  row_disk "disk, attach store: $nphotos distinct photos (du -sk)" "$mk_cp" "${k_att[@]}"
  row_disk "disk, cp folder: seed × $seed_times (du -sk)" "" "${k_cpseed[@]}"
  row_disk "disk, attach store: seed × $seed_times (du -sk)" "$mk_cpseed" "${k_attseed[@]}"
)

# --- the report ------------------------------------------------------------------------------
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

x_time=$(ratio "$m_att" "$m_cp"); x_seed=$(ratio "$m_attseed" "$m_cpseed")
x_disk=$(ratio "$mk_att" "$mk_cp"); x_one=$(ratio "$mk_attseed" "$k_one")
mbs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }
overhead_kib=$((mk_att - mk_cp))

section=$(
  echo '<!-- ingest:begin -->'
  echo '## Ingest: `attach import` vs `cp` + `sync`'
  echo
  if [ "$smoke" = 1 ]; then
    echo "**Smoke pass (BENCH_SMOKE=1): one run, $nphotos photos. These numbers check that the benchmark works; they are not a benchmark.**"
    echo
  fi
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- Machine: $(nproc) CPUs, ${mem} GiB RAM (free -g), $(uname -sr), scratch filesystem $fstype"
  echo "- Commit: $commit; attach $version ($build, \`$binshown\`)"
  echo "- Input: $nphotos distinct 12 MP JPEGs from the corpus \`fifty/\` ($input_bytes bytes), and \`special/seed-3.7mb.jpg\` ($seed_bytes bytes)"
  echo "- Reproduce: \`make bench\` (builds the release binary, then runs \`scripts/bench-ingest.sh\`; BENCH_RUNS=N sets the number of runs)"
  echo
  echo "Each run starts from an empty folder (cp) or a freshly initialised store (\`attach init\`, untimed), after an untimed \`sync\` and an untimed \`cat\` of the inputs so that both sides read them from the page cache (no caches are dropped). Timed with \`date +%s.%N\`: for cp, \`cp\` of the files into the folder followed by \`sync\`; for attach, one \`attach import --new-note …\` naming every file (for the seed workload, the same path $seed_times times). cp and attach runs alternate. Disk is \`du -sk\` of the folder or store after the run; the ratio column is attach over cp, median over median."
  echo
  echo "$table"
  echo
  echo "### What this shows"
  echo
  echo "attach import took ${x_time}× the time of cp + sync for the same $nphotos files (median $(printf '%.3f' "$m_att") s, about $(mbs "$input_bytes" "$m_att") MiB/s, against $(printf '%.3f' "$m_cp") s, about $(mbs "$input_bytes" "$m_cp") MiB/s). That price buys durability per file: each attach import hashes the bytes while copying, fsyncs each file and the directory it is renamed into, and commits a SQLite transaction per file (WAL, synchronous = FULL), so each photo is on disk before the next one starts; cp + sync makes everything durable once, at the end. attach's time also includes starting the process and opening the catalog once. For the $nphotos distinct photos the store takes ${x_disk}× the disk of the plain copies ($((overhead_kib)) KiB more: the catalog and the blob folders)."
  echo
  echo "Importing seed-3.7mb.jpg $seed_times times (workload a) keeps one blob and $seed_times attachments: the store takes ${x_one}× the disk of one image ($mk_attseed KiB against $k_one KiB; $mb_attseed bytes apparent), where cp's $seed_times copies take $mk_cpseed KiB. Deduplication saves disk, not time: attach still copies each of the $seed_times into a staging file, hashing it, and fsyncs it before finding the blob already present and dropping the copy, so it took ${x_seed}× the time of cp + sync writing the $seed_times copies (median $(printf '%.3f' "$m_attseed") s against $(printf '%.3f' "$m_cpseed") s)."
  echo '<!-- ingest:end -->'
)

if [ -f "$out" ]; then
  read -r begins ends < <(count_markers "$out")
  if [ "$begins" = 0 ] && [ "$ends" = 0 ]; then
    { cat "$out"; echo; echo "$section"; } > "$scratch/out.md"
  elif [ "$begins" = 1 ] && [ "$ends" = 1 ]; then
    printf '%s\n' "$section" > "$scratch/section.md"
    awk -v sec="$scratch/section.md" '
      /^<!-- ingest:begin -->$/ { while ((getline line < sec) > 0) print line; skip = 1; next }
      /^<!-- ingest:end -->$/ { skip = 0; next }
      !skip { print }' "$out" > "$scratch/out.md"
  else
    die "$out changed while the benchmark ran: its ingest markers are no longer one of each (or none). Left unchanged."
  fi
  cat "$scratch/out.md" > "$out"
else
  { echo '# Benchmarks'; echo; echo "$section"; } > "$out"
fi

say "wrote the ingest section of $out"
echo "$table"
