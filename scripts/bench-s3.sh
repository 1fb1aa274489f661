#!/usr/bin/env bash
# Measures saving photos with their originals in S3: `attach import --blobs s3://…` of the
# corpus's fifty/ photos against uploading the same files with boto3 (`put_object`, one after
# the other) to the same endpoint, bucket and credentials, in the same run (issue 8). Writes the
# s3 section of BENCHMARKS.md (between <!-- s3:begin --> and <!-- s3:end -->, the rest of the
# file is kept) and prints the table to stdout; progress goes to stderr. Called by `make bench`
# under scripts/with-services.sh, which starts the local S3 store (or reuses a running one).
#
# Environment:
#   S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_REGION
#                  the S3 store (required; scripts/with-services.sh sets them)
#   ATTACH_CORPUS  corpus folder (default .cache/corpus; needs fifty/ and special/seed-3.7mb.jpg)
#   ATTACH_BIN     attach binary (default .build/release/attach)
#   BENCH_RUNS     timed runs per measure (default 5)
#   BENCH_SMOKE=1  one run, first 5 photos (CI smoke pass; not a benchmark)
#   BENCH_OUT      file to write (default BENCHMARKS.md at the repo root)
#   TMPDIR         where the scratch folders go (default /tmp): the stores' catalogs and staged
#                  copies live there
# boto3 is installed from PyPI into .cache/s3-bench-venv the first time (python3 with venv).
# Each run uses fresh key prefixes (bench-<id>-<run>-attach/, bench-<id>-<run>-boto3/); the
# objects of each run are deleted afterwards, untimed.
# Shared helpers (inputs, markers, timing, statistics, the report's header): scripts/bench-lib.sh.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"

# --- inputs ----------------------------------------------------------------------------------
bench_inputs
bench_require_s3

# boto3, in its own venv (like Tests/e2e/fuzz_api.sh does for schemathesis).
venv=$repo/.cache/s3-bench-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import boto3' > /dev/null 2>&1; then
  py=python3
  if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
    py=/usr/bin/python3
    if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
      # shellcheck source=scripts/apt-lib.sh
      . "$repo/scripts/apt-lib.sh"
      apt_install "to make the venv for boto3" python3-venv || die "python3 cannot make a venv"
    fi
  fi
  say "installing boto3 from PyPI into $venv"
  rm -rf "$venv"
  "$py" -m venv "$venv" || die "could not make a venv at $venv"
  "$venv/bin/pip" install -q boto3 || die "could not install boto3 into $venv (pip install boto3)"
fi
boto3_version=$("$venv/bin/python" -c 'import boto3, botocore; print("boto3 %s, botocore %s" % (boto3.__version__, botocore.__version__))')

# The output must be writable, with one s3 section or none: checked now, not after the runs.
bench_check_output s3

# --- scratch ---------------------------------------------------------------------------------
bench_scratch

# The boto3 side and the untimed helpers (count and delete a prefix's objects), one script.
# put: one client, then put_object of each file in turn (the body an open file), one after the
# other; prints the seconds of the PUT loop alone (client made) on stdout.
cat > "$scratch/s3.py" << 'PY'
import os, sys, time
import boto3
from botocore.config import Config

def client():
    return boto3.client(
        "s3",
        endpoint_url=os.environ["S3_ENDPOINT"],
        aws_access_key_id=os.environ["S3_ACCESS_KEY"],
        aws_secret_access_key=os.environ["S3_SECRET_KEY"],
        region_name=os.environ["S3_REGION"],
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"),
    )

def keys(s3, bucket, prefix):
    out = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        out += [o["Key"] for o in page.get("Contents", [])]
    return out

mode, prefix = sys.argv[1], sys.argv[2]
bucket = os.environ["S3_BUCKET"]
s3 = client()
if mode == "put":
    t0 = time.perf_counter()
    for path in sys.argv[3:]:
        with open(path, "rb") as body:
            s3.put_object(Bucket=bucket, Key=prefix + os.path.basename(path), Body=body)
    print("%.6f" % (time.perf_counter() - t0))
elif mode == "count":
    print(len(keys(s3, bucket, prefix)))
elif mode == "delete":
    found = keys(s3, bucket, prefix)
    for k in found:  # one by one: Swift's s3api wants a Content-MD5 on DeleteObjects, which botocore no longer sends
        s3.delete_object(Bucket=bucket, Key=k)
    print(len(found))
else:
    sys.exit("usage: s3.py put|count|delete PREFIX [FILE...]")
PY
s3py() { "$venv/bin/python" "$scratch/s3.py" "$@"; }

run_id=$(date -u +%Y%m%d%H%M%S)-$$
prefixes=() # every prefix used, deleted again on exit (also on failure)
cleanup() {
  local p
  for p in "${prefixes[@]}"; do s3py delete "$p" > /dev/null 2>&1 || true; done
  chmod -R u+w "$scratch" 2> /dev/null || true
  rm -rf "$scratch"
}
s3py count "bench-$run_id-probe/" > /dev/null 2> "$scratch/probe.log" \
  || { cat "$scratch/probe.log" >&2; die "boto3 cannot list bucket $S3_BUCKET at $S3_ENDPOINT"; }

# --- timed runs (attach and boto3 alternate, the first side swapping each run) ----------------
declare -a t_att t_boto t_botoloop
nphotos=${#files[@]}
say "corpus $corpus: $nphotos photos, $input_bytes bytes; S3 $S3_ENDPOINT bucket $S3_BUCKET"
say "binary $bin; $boto3_version; $runs run(s); scratch $scratch"

attach_side() { # attach_side RUN: init (untimed), then the timed import into a fresh prefix
  local r=$1 p s blobs n
  p=bench-$run_id-$r-attach; prefixes+=("$p/")
  blobs="s3://$S3_BUCKET/$p?endpoint=$S3_ENDPOINT"
  s=$scratch/store; fresh "$s"
  attach_quiet init --store "$s" --blobs "$blobs"; sync; warm "${files[@]}"
  t0=$(now); attach_quiet import --no-thumbnails --store "$s" --blobs "$blobs" --new-note bench -- "${files[@]}"; t1=$(now)
  t_att+=("$(elapsed "$t0" "$t1")")
  n=$(s3py count "$p/") || die "could not list the objects under $p/"
  [ "$n" = "$nphotos" ] || die "S3 holds $n objects under $p/ after attach imported $nphotos distinct photos"
  say "run $r/$runs  attach import --blobs s3://…, $nphotos photos: ${t_att[-1]} s"
  s3py delete "$p/" > /dev/null || die "could not delete the objects under $p/"
  fresh "$s"
}
boto3_side() { # boto3_side RUN: the timed PUTs into a fresh prefix
  local r=$1 p n loop
  p=bench-$run_id-$r-boto3; prefixes+=("$p/")
  sync; warm "${files[@]}"
  t0=$(now); loop=$(s3py put "$p/" "${files[@]}") || die "boto3 put_object failed"; t1=$(now)
  t_boto+=("$(elapsed "$t0" "$t1")"); t_botoloop+=("$loop")
  n=$(s3py count "$p/") || die "could not list the objects under $p/"
  [ "$n" = "$nphotos" ] || die "S3 holds $n objects under $p/ after boto3 uploaded $nphotos photos"
  say "run $r/$runs  boto3 put_object, $nphotos photos: ${t_boto[-1]} s (PUT loop alone $loop s)"
  s3py delete "$p/" > /dev/null || die "could not delete the objects under $p/"
}
for ((r = 1; r <= runs; r++)); do
  if ((r % 2)); then boto3_side "$r"; attach_side "$r"; else attach_side "$r"; boto3_side "$r"; fi
done

# --- the report ------------------------------------------------------------------------------
m_att=$(median "${t_att[@]}"); m_boto=$(median "${t_boto[@]}"); m_loop=$(median "${t_botoloop[@]}")
x=$(ratio "$m_att" "$m_boto"); x_loop=$(ratio "$m_att" "$m_loop")
mibs() { awk -v b="$input_bytes" -v s="$1" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }
row_loop() { # row_loop LABEL VALUES...: a reference row of its own (the PUT loop)
  local label=$1 min med max; shift
  read -r min med max < <(summary "$@")
  printf '| %s | %d | %.3f s | %.3f s | %.3f s | 1.00× (reference of the PUT-loop ratio) |\n' "$label" "$#" "$min" "$med" "$max"
}
table=$(
  printf '| measure | runs | min | median | max | ratio to boto3 |\n'
  printf '|---|---:|---:|---:|---:|---:|\n'
  row_time "boto3 put_object, one after the other: $nphotos photos, the whole python3 process (wall time, start-up included)" "" "${t_boto[@]}"
  row_loop "boto3 put_object, one after the other: $nphotos photos, the PUT loop alone, client made (\`time.perf_counter\` in the process)" "${t_botoloop[@]}"
  row_time "attach import --no-thumbnails --blobs s3://…: $nphotos photos (wall time, start-up included)" "$m_boto" "${t_att[@]}" \
    | sed "s/ |\$/ (${x_loop}× the PUT loop) |/"
)
section=$(
  echo '<!-- s3:begin -->'
  echo '## Originals in S3: `attach import --blobs s3://…` vs boto3 `put_object`'
  echo
  if [ "$smoke" = 1 ]; then
    echo "**Smoke pass (BENCH_SMOKE=1): one run, $nphotos photos. These numbers check that the benchmark works; they are not a benchmark.**"
    echo
  fi
  bench_header
  echo "- S3 store: \`$S3_ENDPOINT\` (bucket \`$S3_BUCKET\`, path-style), the local OpenStack Swift with s3api that \`scripts/with-services.sh\` starts, on the same machine, over loopback; reference: $boto3_version (PyPI, in \`.cache/s3-bench-venv\`)"
  echo "- Input: $nphotos distinct 12 MP JPEGs from the corpus \`fifty/\` ($input_bytes bytes)"
  echo "- Reproduce: \`make bench\` (builds the release binary, starts the S3 store, runs \`scripts/bench-s3.sh\`), or \`make bench-s3\` for this section alone; BENCH_RUNS=N sets the number of runs"
  echo
  echo "Each run uploads the $nphotos photos twice, each time under a fresh key prefix of the same bucket, endpoint and credentials (\`bench-<id>-<run>-attach/\` and \`bench-<id>-<run>-boto3/\`); the two sides alternate, and which goes first swaps from one run to the next. attach: \`attach init --store DIR --blobs \"s3://$S3_BUCKET/PREFIX?endpoint=$S3_ENDPOINT\"\` (untimed), then one \`attach import --no-thumbnails --blobs … --new-note bench\` naming every file, timed. boto3: one \`python3\` process that makes an S3 client (path-style addressing, SigV4) and calls \`put_object\` for each file in turn with the open file as its body, one after the other (no threads, no multipart), timed as a whole like attach, start-up included; the PUT loop alone is also reported. Before each timed command an untimed \`sync\` and \`cat\` of the photos put them on the page cache. After each side, the objects under its prefix are counted ($nphotos expected) and deleted (untimed). Timed with \`date +%s.%N\`; the ratio column is attach over boto3, median over median."
  echo
  echo "$table"
  echo
  echo "### What this shows"
  echo
  echo "For the same $nphotos photos to the same S3 store, attach import took **${x}×** the time of the boto3 process and **${x_loop}×** the time of boto3's PUT loop alone (medians: attach $(printf '%.3f' "$m_att") s, about $(mibs "$m_att") MiB/s; the boto3 process $(printf '%.3f' "$m_boto") s; its PUT loop $(printf '%.3f' "$m_loop") s, about $(mibs "$m_loop") MiB/s). attach's time and the boto3 process's both include starting a process; the boto3 process's also includes starting Python, importing boto3 and making the client (the difference of the two boto3 medians, $(awk -v a="$m_boto" -v b="$m_loop" 'BEGIN { printf "%.3f", a - b }') s), which a long-running program pays once, so the PUT-loop ratio is the one to compare uploads by. The two do not do the same work. For each photo attach copies the file into a staging file in the store while hashing it (SHA-256), fsyncs that staged copy (it stays as the local copy readers use, hard-linked into \`cache/blobs/\`), claims the upload in the catalog (a SQLite transaction), streams the staged copy to S3 as \`sha256/<hash>\` while hashing what it sends, and accepts the upload only when that SHA-256 and size match the blob's name (a mismatch deletes the object), then commits the photo's catalog transaction (WAL, synchronous = FULL), so each photo is durable and recorded before the next starts; its time also includes starting the process and opening the catalog. boto3 just PUTs each file and keeps no record: botocore reads the file once for a CRC32 checksum header and once for the SHA-256 that a SigV4 signature over plain http carries (\`x-amz-content-sha256\`), then sends it (\`Expect: 100-continue\`); attach signs \`UNSIGNED-PAYLOAD\` and hashes while it sends. The S3 store runs on the same 2 cores as both clients, so its own work (Swift's proxy and object servers, which write and fsync each object) is part of both times."
  echo '<!-- s3:end -->'
)

bench_write_section s3 "$section"
echo "$table"
