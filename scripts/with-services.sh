#!/usr/bin/env bash
# with-services.sh COMMAND [ARG...]
#
# Starts the services the tests need (an S3 store: OpenStack Swift with s3api on 127.0.0.1,
# through ../shared/services/s3.sh), runs COMMAND with their environment (S3_ENDPOINT,
# S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_REGION) and ATTACH_REQUIRE_SERVICES=1, then
# stops them, also when COMMAND fails or is interrupted, and exits with COMMAND's status.
#
# State lives in .build/services/ (ignored by git). s3.sh is idempotent, so a store left
# running by an earlier, interrupted run is reused, on the port it was started on.
#
# Environment: ATTACH_SERVICES_DIR (default ../shared/services beside the clone),
# ATTACH_SERVICES_STATE (default .build/services), S3_PORT (default: the port recorded in
# the state, else 59000).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: with-services.sh COMMAND [ARG...]" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
services=${ATTACH_SERVICES_DIR:-$root/../shared/services}
state=${ATTACH_SERVICES_STATE:-$root/.build/services}
s3_state=$state/s3
port=${S3_PORT:-$(cat "$s3_state/etc/proxy.port" 2>/dev/null || echo 59000)}

[ -x "$services/s3.sh" ] || {
  echo "with-services.sh: $services/s3.sh not found; the project's clone must sit next to shared/ (or set ATTACH_SERVICES_DIR)" >&2
  exit 1
}
mkdir -p "$state"

stop_services() {
  "$services/s3.sh" stop "$s3_state" >&2 || echo "with-services.sh: stopping the S3 store in $s3_state failed" >&2
}

# A failed start stops what it started (s3.sh), so there is nothing to clean up before here.
# One more try on failure: a backend picking a port another process took meanwhile is
# transient (seen once with memcached on a busy machine).
env_lines=$("$services/s3.sh" start "$s3_state" "$port") || {
  echo "with-services.sh: starting the S3 store failed; trying once more" >&2
  env_lines=$("$services/s3.sh" start "$s3_state" "$port")
}
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

while IFS= read -r line; do
  case $line in
    S3_*=*) export "${line?}" ;;
  esac
done <<<"$env_lines"
[ -n "${S3_ENDPOINT:-}" ] || { echo "with-services.sh: s3.sh printed no S3_ENDPOINT" >&2; exit 1; }
export ATTACH_REQUIRE_SERVICES=1
echo "with-services.sh: S3 store at $S3_ENDPOINT (bucket $S3_BUCKET)" >&2

status=0
"$@" || status=$?
exit "$status"
