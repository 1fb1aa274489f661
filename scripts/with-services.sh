#!/usr/bin/env bash
# with-services.sh COMMAND [ARG...]
#
# Starts the services the tests need — an S3 store (OpenStack Swift with s3api on 127.0.0.1,
# through scripts/services/s3.sh) and PostgreSQL (on 127.0.0.1, through
# scripts/services/postgres.sh) — runs COMMAND with their environment (S3_ENDPOINT,
# S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_REGION; ATTACH_TEST_POSTGRES, the server's URL;
# ATTACH_POSTGRES_SERVICE_DIR and ATTACH_POSTGRES_SERVICE_SCRIPT, so tests can stop and start
# it) and ATTACH_REQUIRE_SERVICES=1, then stops both, also when COMMAND fails or is
# interrupted, and exits with COMMAND's status.
#
# State lives in .build/services/ (ignored by git): s3/ and pg/. Both scripts are idempotent,
# so a server left running by an earlier, interrupted run is reused, on the port it was
# started on. The PostgreSQL cluster (and its data) is kept across runs; tests use schemas of
# their own.
#
# Environment: ATTACH_SERVICES_STATE (default .build/services), S3_PORT (default: the port
# recorded in the state, else 59000), PG_PORT (default 55432).
#
# To run the tests against a PostgreSQL or S3 of your own instead, skip this script and set
# ATTACH_TEST_POSTGRES (a postgres:// URL) and S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY,
# S3_BUCKET, S3_REGION yourself.
#
# postgres.sh runs the server as the `postgres` user, which must be able to enter the state
# directory; when it cannot (a parent with mode 700, anything under /root), postgres.sh keeps
# the cluster under /var/tmp and links it from the state directory (scripts/services/README.md).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: with-services.sh COMMAND [ARG...]" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
services=$root/scripts/services
state=${ATTACH_SERVICES_STATE:-$root/.build/services}
s3_state=$state/s3
pg_state=$state/pg
port=${S3_PORT:-$(cat "$s3_state/port" 2>/dev/null || echo 59000)}
pg_port=${PG_PORT:-55432}

for script in s3.sh postgres.sh; do
  [ -x "$services/$script" ] || {
    echo "with-services.sh: $services/$script is missing or not executable" >&2
    exit 1
  }
done
mkdir -p "$state"

s3_started=
pg_started=
stop_services() {
  if [ -n "$pg_started" ]; then
    "$services/postgres.sh" stop "$pg_state" >&2 || echo "with-services.sh: stopping PostgreSQL in $pg_state failed" >&2
  fi
  if [ -n "$s3_started" ]; then
    "$services/s3.sh" stop "$s3_state" >&2 || echo "with-services.sh: stopping the S3 store in $s3_state failed" >&2
  fi
}
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A failed start stops what it started (s3.sh), so there is nothing of it to clean up; the
# trap above stops what an earlier step started. One more try on failure: a backend picking
# a port another process took meanwhile is transient (seen once with memcached on a busy machine).
s3_started=1
env_lines=$("$services/s3.sh" start "$s3_state" "$port") || {
  echo "with-services.sh: starting the S3 store failed; trying once more" >&2
  env_lines=$("$services/s3.sh" start "$s3_state" "$port")
}

while IFS= read -r line; do
  case $line in
    S3_*=*) export "${line?}" ;;
  esac
done <<<"$env_lines"
[ -n "${S3_ENDPOINT:-}" ] || { echo "with-services.sh: s3.sh printed no S3_ENDPOINT" >&2; exit 1; }
echo "with-services.sh: S3 store at $S3_ENDPOINT (bucket $S3_BUCKET)" >&2

pg_started=1
pg_url=$("$services/postgres.sh" start "$pg_state" "$pg_port")
case $pg_url in
  postgres://*) ;;
  *) echo "with-services.sh: postgres.sh printed no postgres:// URL" >&2; exit 1 ;;
esac
export ATTACH_TEST_POSTGRES=$pg_url
export ATTACH_TEST_POSTGRES_CA=$pg_state/ca.crt
ATTACH_TEST_POSTGRES_SOCKET_DIR=$(cat "$pg_state/socket-dir")
export ATTACH_TEST_POSTGRES_SOCKET_DIR
export ATTACH_POSTGRES_SERVICE_DIR=$pg_state
export ATTACH_POSTGRES_SERVICE_SCRIPT=$services/postgres.sh
echo "with-services.sh: PostgreSQL at 127.0.0.1:$pg_port (ATTACH_TEST_POSTGRES)" >&2
export ATTACH_REQUIRE_SERVICES=1

status=0
"$@" || status=$?
exit "$status"
