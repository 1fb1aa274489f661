#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# selftest.sh — proves postgres.sh and s3.sh on this machine. Starts both on free loopback
# ports in a fresh temporary DIR, checks PostgreSQL with psql and the S3 store with
# s3_check.py (standard-library Python, SigV4), restarts both, stops both and checks that
# every process they started is gone. Prints "PASS name" / "FAIL name" lines, a few
# "TIME" lines, and "N passed, N failed" as the very last line; exits 1 on any failure.
# Needs root on a machine without the packages (the first start installs them).
set -euo pipefail

SVC_NAME=selftest.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

PY=python3
command -v "$PY" >/dev/null || PY=/usr/bin/python3

WORK=$(mktemp -d /tmp/attachmentstore-selftest.XXXXXX)
chmod 755 "$WORK" # the postgres user must be able to enter it
PGDIR=$WORK/pg
S3DIR=$WORK/s3

cleanup() {
  "$HERE/s3.sh" stop "$S3DIR" >/dev/null 2>&1 || true
  "$HERE/postgres.sh" stop "$PGDIR" >/dev/null 2>&1 || true
  rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

PASSED=0
FAILED=0
record() { # NAME OK(0/1) [DETAIL]
  if [ "$2" = 0 ]; then
    PASSED=$((PASSED + 1))
    echo "PASS $1${3:+ ($3)}"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $1${3:+ ($3)}"
  fi
}
check() { # NAME COMMAND...: PASS when COMMAND succeeds
  local name=$1
  shift
  if "$@"; then record "$name" 0; else record "$name" 1; fi
}
timing() { echo "TIME $1: $2 s"; }

read -r PG_PORT S3_PORT < <(svc_pick_ports 2)

# ------------------------------------------------------------------------------------------
# PostgreSQL

PSQL=$(command -v psql || echo /usr/lib/postgresql/15/bin/psql)
sql() { # URL SQL...: each SQL as its own -c, tuples only, unaligned
  local url=$1 args=() s
  shift
  for s in "$@"; do args+=(-c "$s"); done
  PGCONNECT_TIMEOUT=10 "$PSQL" "$url" -X -q -At -v ON_ERROR_STOP=1 "${args[@]}"
}

t0=$EPOCHREALTIME
if PG_URL=$("$HERE/postgres.sh" start "$PGDIR" "$PG_PORT" </dev/null); then pg_ok=0; else pg_ok=1; fi
timing "postgres.sh start, fresh DIR (install included if it was missing)" "$(svc_elapsed "$t0")"
url_re="^postgres://attach:[A-Za-z0-9]+@127\.0\.0\.1:$PG_PORT/attach\$"
if [ "$pg_ok" = 0 ] && [[ $PG_URL =~ $url_re ]]; then ok=0; else ok=1; fi
record "postgres: start prints exactly the URL" "$ok" "${PG_URL:-nothing}"

if [ "$pg_ok" = 0 ]; then
  PG_PID=$(svc_recorded_pid "$PGDIR/server.pid" postgres) || PG_PID=''
  # The postmaster and its children all work in the data directory.
  PG_DATA=$(realpath "$PGDIR/pgdata")

  pg_roundtrip() {
    local out
    out=$(sql "$PG_URL" \
      "CREATE TABLE selftest (id int PRIMARY KEY, title text NOT NULL)" \
      "INSERT INTO selftest VALUES (1, 'first'), (2, 'second')" \
      "SELECT string_agg(id || '=' || title, ',' ORDER BY id) FROM selftest" \
      "SELECT current_user || '@' || current_database() || '@' || host(inet_server_addr())") || return 1
    [ "$out" = $'1=first,2=second\nattach@attach@127.0.0.1' ] || { echo "got: $out" >&2; return 1; }
  }
  check "postgres: psql as attach creates, inserts and selects" pg_roundtrip

  pg_wrong_password() {
    local err
    if err=$(sql "${PG_URL/attach:*@/attach:not-the-password@}" "SELECT 1" 2>&1); then return 1; fi
    [[ $err == *"password authentication failed"* ]]
  }
  check "postgres: a wrong password is refused" pg_wrong_password

  pg_tls_verified() {
    local out
    out=$(sql "$PG_URL?sslmode=verify-full&sslrootcert=$PGDIR/ca.crt" \
      "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") || return 1
    [ "$out" = t ] || { echo "got: $out" >&2; return 1; }
  }
  check "postgres: TLS with its certificate verified (sslmode=verify-full)" pg_tls_verified

  pg_loopback_only() {
    [ "$(svc_listen_addrs "$PG_PORT" | sort -u | tr '\n' ' ')" = "127.0.0.1 " ] &&
      [ ! -S "/var/run/postgresql/.s.PGSQL.$PG_PORT" ] && [ ! -S "/tmp/.s.PGSQL.$PG_PORT" ]
  }
  check "postgres: listens on 127.0.0.1 only, no socket in the system's socket folders" pg_loopback_only

  pg_own_socket() {
    local dir out
    dir=$(<"$PGDIR/socket-dir")
    [ -S "$dir/.s.PGSQL.$PG_PORT" ] && [ "$(stat -c %a "$dir")" = 700 ] || return 1
    out=$(PGPASSWORD=$(<"$PGDIR/password") PGCONNECT_TIMEOUT=10 "$PSQL" -X -A -t -v ON_ERROR_STOP=1 \
      -h "$dir" -p "$PG_PORT" -U attach -d attach -c "SELECT inet_server_addr() IS NULL") || return 1
    [ "$out" = t ] || { echo "got: $out" >&2; return 1; }
  }
  check "postgres: its own Unix socket (mode 0700 folder) with a password" pg_own_socket

  check "postgres: url prints the same URL" \
    test "$("$HERE/postgres.sh" url "$PGDIR" 2>/dev/null)" = "$PG_URL"

  t0=$EPOCHREALTIME
  again=$("$HERE/postgres.sh" start "$PGDIR" "$PG_PORT" 2>/dev/null </dev/null) || again=''
  timing "postgres.sh start, already running" "$(svc_elapsed "$t0")"
  check "postgres: start while running prints the same URL, same server" \
    test "$again|$(svc_recorded_pid "$PGDIR/server.pid" postgres)" = "$PG_URL|$PG_PID"

  t0=$EPOCHREALTIME
  "$HERE/postgres.sh" stop "$PGDIR" 2>/dev/null
  timing "postgres.sh stop" "$(svc_elapsed "$t0")"
  t0=$EPOCHREALTIME
  again=$("$HERE/postgres.sh" start "$PGDIR" "$PG_PORT" 2>/dev/null </dev/null) || again=''
  timing "postgres.sh start, restart of a stopped DIR" "$(svc_elapsed "$t0")"
  check "postgres: restarted with its data" \
    test "$again|$(sql "$PG_URL" "SELECT count(*) FROM selftest" 2>&1)" = "$PG_URL|2"
fi

# ------------------------------------------------------------------------------------------
# S3

s3_call() { # ENVFILE PYTHON-ARGS...: runs s3_check.py / Python with the env lines exported
  local envfile=$1
  shift
  (
    set -a
    # shellcheck disable=SC1090 # the env lines s3.sh printed
    . "$envfile"
    set +a
    "$PY" "$@"
  )
}

t0=$EPOCHREALTIME
if "$HERE/s3.sh" start "$S3DIR" "$S3_PORT" </dev/null >"$WORK/s3.env"; then s3_ok=0; else s3_ok=1; fi
timing "s3.sh start, fresh DIR (install included if it was missing)" "$(svc_elapsed "$t0")"
expected_env="S3_ENDPOINT=http://127.0.0.1:$S3_PORT
S3_ACCESS_KEY=attach:attach
S3_SECRET_KEY=$(cat "$S3DIR/secret" 2>/dev/null)
S3_BUCKET=attach
S3_REGION=us-east-1"
if [ "$s3_ok" = 0 ] && [ "$(cat "$WORK/s3.env")" = "$expected_env" ] &&
  grep -Eqx 'S3_SECRET_KEY=[A-Za-z0-9]{20,}' "$WORK/s3.env"; then ok=0; else ok=1; fi
record "s3: start prints exactly the five env lines" "$ok"

if [ "$s3_ok" = 0 ]; then
  check "s3: env prints what start printed" test "$("$HERE/s3.sh" env "$S3DIR" 2>/dev/null)" = "$(cat "$WORK/s3.env")"

  s3_loopback_only() {
    local port
    for port in "$S3_PORT" $(awk '{ print $2 }' "$S3DIR/conf/ports"); do
      [ "$(svc_listen_addrs "$port" | sort -u | tr '\n' ' ')" = "127.0.0.1 " ] ||
        { echo "port $port: $(svc_listen_addrs "$port" | tr '\n' ' ')" >&2; return 1; }
    done
  }
  check "s3: endpoint, backends and memcached listen on 127.0.0.1 only" s3_loopback_only

  # The S3 protocol checks: each prints its own PASS/FAIL line.
  set +e
  s3_call "$WORK/s3.env" "$HERE/s3_check.py" suite >"$WORK/s3_check.out" 2>&1
  rc=$?
  set -e
  cat "$WORK/s3_check.out"
  n_pass=$(grep -c '^PASS ' "$WORK/s3_check.out" || true)
  n_fail=$(grep -c '^FAIL ' "$WORK/s3_check.out" || true)
  PASSED=$((PASSED + n_pass))
  FAILED=$((FAILED + n_fail))
  if [ "$rc" != 0 ] && [ "$n_fail" = 0 ]; then record "s3: s3_check.py suite ran to the end" 1 "exit $rc"; fi

  t0=$EPOCHREALTIME
  again=$("$HERE/s3.sh" start "$S3DIR" "$S3_PORT" 2>/dev/null </dev/null) || again=''
  timing "s3.sh start, already running" "$(svc_elapsed "$t0")"
  check "s3: start while running prints the same lines" test "$again" = "$(cat "$WORK/s3.env")"

  # Data survives a stop and a start; a crashed backend is noticed and everything restarts.
  marker() { # put|get
    s3_call "$WORK/s3.env" - "$HERE" "$1" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from s3_check import client_from_env
s3 = client_from_env()
if sys.argv[2] == "put":
    sys.exit(0 if s3.request("PUT", "selftest-marker", body=b"still here")[0] == 200 else 1)
status, _, body = s3.request("GET", "selftest-marker")
sys.exit(0 if (status, body) == (200, b"still here") else 1)
PY
  }
  marker put || true
  t0=$EPOCHREALTIME
  "$HERE/s3.sh" stop "$S3DIR" 2>/dev/null
  timing "s3.sh stop" "$(svc_elapsed "$t0")"
  t0=$EPOCHREALTIME
  again=$("$HERE/s3.sh" start "$S3DIR" "$S3_PORT" 2>/dev/null </dev/null) || again=''
  timing "s3.sh start, restart of a stopped DIR" "$(svc_elapsed "$t0")"
  s3_restarted() { [ "$again" = "$(cat "$WORK/s3.env")" ] && marker get; }
  check "s3: restarted with its data" s3_restarted

  s3_partial_restart() {
    local victim new
    victim=$(svc_recorded_pid "$S3DIR/run/object.pid" swift-object-server) || return 1
    kill -KILL "$victim"
    again=$("$HERE/s3.sh" start "$S3DIR" "$S3_PORT" 2>/dev/null </dev/null) || return 1
    [ "$again" = "$(cat "$WORK/s3.env")" ] || return 1
    new=$(svc_recorded_pid "$S3DIR/run/object.pid" swift-object-server) || return 1
    [ "$new" != "$victim" ] && marker get
  }
  t0=$EPOCHREALTIME
  check "s3: after a backend crash, start restarts the set and the data is there" s3_partial_restart
  timing "s3.sh start after a backend crash" "$(svc_elapsed "$t0")"
fi

# ------------------------------------------------------------------------------------------
# Stop: every process either script started is gone.

all_gone() {
  local procs=() f pid ticks name p
  for f in "$S3DIR"/run/*.pid "$PGDIR/server.pid"; do
    [ -f "$f" ] || continue
    read -r pid ticks <"$f"
    procs+=("$pid:$ticks")
  done
  if [ -n "${PG_DATA:-}" ]; then # postmaster children: every process working in the data dir
    for p in /proc/[0-9]*; do
      [ "$(readlink "$p/cwd" 2>/dev/null)" = "$PG_DATA" ] || continue
      pid=${p#/proc/}
      ticks=$(svc_start_ticks "$pid") && procs+=("$pid:$ticks")
    done
  fi
  [ "${#procs[@]}" -ge 6 ] || { echo "only ${#procs[@]} processes found to watch" >&2; return 1; }
  "$HERE/s3.sh" stop "$S3DIR" 2>/dev/null
  "$HERE/postgres.sh" stop "$PGDIR" 2>/dev/null
  local entry left=()
  for entry in "${procs[@]}"; do
    pid=${entry%%:*} ticks=${entry##*:}
    # gone, a zombie (svc_start_ticks fails), or the number now belongs to someone else
    if [ "$(svc_start_ticks "$pid" 2>/dev/null)" = "$ticks" ]; then left+=("$pid"); fi
  done
  [ "${#left[@]}" = 0 ] || { echo "still running: ${left[*]}" >&2; return 1; }
}
check "stop: every process the scripts started is gone" all_gone

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
