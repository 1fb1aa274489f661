#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# postgres.sh — a disposable PostgreSQL 15 for the tests, reachable on 127.0.0.1 only.
#
#   postgres.sh start DIR PORT   install PostgreSQL when missing, create the cluster kept in
#                                DIR (first time) and run it on 127.0.0.1:PORT; prints
#                                postgres://attach:PASSWORD@127.0.0.1:PORT/attach
#   postgres.sh stop DIR         stop it (nothing to do when it is not running)
#   postgres.sh url DIR          print the URL again
#   postgres.sh destroy DIR      stop it and delete the cluster and its secrets
#
# stdout carries the URL and nothing else; progress and errors go to stderr.
# ATTACH_PG_DURABLE=1 keeps PostgreSQL's crash-safe defaults (fsync and friends).
# See README.md in this folder.
set -euo pipefail

SVC_NAME=postgres.sh
# shellcheck source=lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

readonly PG_MAJOR=15
readonly PG_DEBS=(postgresql postgresql-client)
readonly APP=attach # login role and database
readonly SUPERUSER=postgres
# Where a cluster goes when the postgres user cannot enter DIR (DIR/pgdata links to it).
readonly OUTSIDE_ROOT=/var/tmp/attachmentstore-pg

usage() {
  echo "usage:" >&2
  sed -n 's/^#   //p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

# --- binaries ----------------------------------------------------------------------------

# pg_bin_dir: the bin directory of PostgreSQL 15, else of the newest installed major.
pg_bin_dir() {
  local d dirs=()
  mapfile -t dirs < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r)
  for d in "/usr/lib/postgresql/$PG_MAJOR/bin" "${dirs[@]}"; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && [ -x "$d/psql" ] &&
      [ -x "$d/pg_isready" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

need_postgres() {
  if ! BIN=$(pg_bin_dir); then
    svc_log "PostgreSQL is not installed"
    local t0=$EPOCHREALTIME
    svc_install_debs "${PG_DEBS[@]}"
    svc_log "installed ${PG_DEBS[*]} in $(svc_elapsed "$t0") s"
    BIN=$(pg_bin_dir) || svc_die "no PostgreSQL server binaries after installing ${PG_DEBS[*]}"
  fi
}

# --- where things are ---------------------------------------------------------------------

# layout DIR: STATE (absolute DIR) and DATA (the cluster directory, a symlink resolved).
layout() {
  STATE=$(svc_abs_dir "$1")
  DATA=$STATE/pgdata
  if [ -L "$DATA" ]; then DATA=$(realpath -m -- "$DATA"); fi
}

# pick_owner: the account that owns and runs the cluster (PostgreSQL refuses root).
pick_owner() {
  if svc_is_root; then
    id -u "$SUPERUSER" >/dev/null 2>&1 || svc_die "there is no '$SUPERUSER' system user (postgresql-common creates it)"
    OWNER=$SUPERUSER
  else
    OWNER=$(id -un)
  fi
}

# as_owner CMD...: CMD as the cluster owner, from /, holding none of our descriptors.
as_owner() {
  if svc_is_root; then
    (cd / && svc_detached runuser -u "$OWNER" -- "$@")
  else
    (cd / && svc_detached "$@")
  fi
}

owner_can_enter() {
  ! svc_is_root || runuser -u "$OWNER" -- test -x "$1" 2>/dev/null
}

# place_cluster: decides DATA for a DIR without a cluster yet. Below a directory the owner
# cannot enter (mktemp -d, /root, ...) the cluster lives in OUTSIDE_ROOT instead.
place_cluster() {
  if [ -e "$STATE/pgdata" ] || [ -L "$STATE/pgdata" ]; then return 0; fi
  owner_can_enter "$STATE" && return 0
  install -d -m 0755 "$OUTSIDE_ROOT"
  DATA=$OUTSIDE_ROOT/$(printf '%s' "$STATE" | sha256sum | cut -c1-16)
  if [ -e "$DATA" ]; then # left by an earlier DIR at this path that was deleted unstopped
    svc_log "removing a stale cluster of an earlier $STATE in $DATA"
    stop_cluster || true
    rm -rf -- "$DATA"
  fi
  svc_log "user $OWNER cannot enter $STATE; the cluster goes to $DATA (linked as $STATE/pgdata)"
  ln -s "$DATA" "$STATE/pgdata"
}

# postmaster_pid: the pid of the server running on DATA, if any.
postmaster_pid() {
  local pid=''
  if [ -r "$DATA/postmaster.pid" ]; then
    read -r pid <"$DATA/postmaster.pid" || true
    if svc_pid_is "$pid" "bin/postgres" "-D $DATA"; then
      echo "$pid"
      return 0
    fi
  fi
  svc_recorded_pid "$STATE/server.pid" "bin/postgres" "-D $DATA"
}

url() {
  if [ ! -s "$STATE/password" ] || [ ! -s "$STATE/port" ]; then
    svc_die "no cluster in $STATE (run: postgres.sh start $STATE PORT)"
  fi
  printf 'postgres://%s:%s@127.0.0.1:%s/%s\n' "$APP" "$(<"$STATE/password")" "$(<"$STATE/port")" "$APP"
}

# --- cluster ------------------------------------------------------------------------------

new_secret() { # FILE: a random password, created once and kept
  [ -s "$1" ] || (umask 077 && svc_random_hex 18 >"$1")
}

create_cluster() {
  svc_log "creating a PostgreSQL $("$BIN/postgres" -V | awk '{print $3}') cluster in $DATA"
  new_secret "$STATE/admin-password"
  new_secret "$STATE/password"
  install -d -m 0700 -o "$OWNER" "$DATA"
  local pwfile
  pwfile=$(mktemp "$(dirname "$DATA")/.initdb-secret.XXXXXX")
  cat "$STATE/admin-password" >"$pwfile"
  chown "$OWNER" "$pwfile"
  if ! as_owner "$BIN/initdb" -D "$DATA" -U "$SUPERUSER" --pwfile="$pwfile" -A scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 --no-instructions >"$STATE/initdb.log" 2>&1; then
    rm -f "$pwfile"
    tail -n 20 "$STATE/initdb.log" >&2
    svc_die "initdb failed (log: $STATE/initdb.log)"
  fi
  rm -f "$pwfile"
  printf "\n# scripts/services/postgres.sh rewrites this file on every start:\ninclude_if_exists = 'attachmentstore.conf'\n" \
    >>"$DATA/postgresql.conf"
}

# ensure_tls: a self-signed certificate for 127.0.0.1 (made once, kept), so clients can test
# TLS with sslmode=require or verify-full; DIR/ca.crt is the certificate to trust.
ensure_tls() {
  if [ ! -s "$DATA/server.crt" ] || [ ! -s "$DATA/server.key" ]; then
    command -v openssl >/dev/null || svc_install_debs openssl
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=127.0.0.1" \
      -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
      -keyout "$DATA/server.key" -out "$DATA/server.crt" >/dev/null 2>&1 || svc_die "openssl could not make the TLS certificate"
    chown "$OWNER" "$DATA/server.key" "$DATA/server.crt"
    chmod 600 "$DATA/server.key"
  fi
  install -m 0644 "$DATA/server.crt" "$STATE/ca.crt"
}

# socket_dir: the directory of the cluster's Unix socket, inside the data directory (only its
# owner and root may enter it). A socket path is at most 107 bytes; a longer one is an error.
socket_dir() {
  local dir=$DATA/sockets
  [ ${#dir} -le 90 ] || svc_die "the socket directory $dir is too long for a Unix socket; use a shorter DIR"
  echo "$dir"
}

# write_settings PORT: the settings this script owns, rewritten on every start, and
# pg_hba.conf: TCP from loopback and the Unix socket, always with a SCRAM password.
write_settings() {
  local sockets
  sockets=$(socket_dir)
  install -d -m 0700 -o "$OWNER" "$sockets"
  cat >"$DATA/pg_hba.conf" <<'EOF'
# written by scripts/services/postgres.sh on every start
# TYPE  DATABASE  USER  ADDRESS        METHOD
host    all       all   127.0.0.1/32   scram-sha-256
local   all       all                  scram-sha-256
EOF
  chown "$OWNER" "$DATA/pg_hba.conf"
  echo "$sockets" >"$STATE/socket-dir"
  {
    echo "# written by scripts/services/postgres.sh on every start"
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $1"
    echo "unix_socket_directories = '$sockets'"
    echo "password_encryption = 'scram-sha-256'"
    echo "logging_collector = off"
    echo "# the test suites open many stores at once (each up to 4 connections); 100 is not enough"
    echo "max_connections = 400"
    echo "# TLS for clients that ask (sslmode=require|verify-full); plain connections still work"
    echo "ssl = on"
    echo "ssl_cert_file = 'server.crt'"
    echo "ssl_key_file = 'server.key'"
    if [ "${ATTACH_PG_DURABLE:-0}" = 1 ]; then
      echo "# ATTACH_PG_DURABLE=1: crash-safe defaults kept"
    else
      echo "# a throwaway test cluster: speed over crash safety (ATTACH_PG_DURABLE=1 to keep it)"
      echo "fsync = off"
      echo "synchronous_commit = off"
      echo "full_page_writes = off"
    fi
  } >"$DATA/attachmentstore.conf"
  chown "$OWNER" "$DATA/attachmentstore.conf"
}

# admin_sql PORT: runs the SQL on stdin as the superuser over TCP.
admin_sql() {
  PGPASSWORD=$(<"$STATE/admin-password") PGCONNECT_TIMEOUT=10 \
    "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U "$SUPERUSER" -d postgres >&2
}

# ensure_app PORT: role `attach` (password from DIR/password) owning database `attach`.
ensure_app() {
  local pw
  pw=$(<"$STATE/password")
  [[ $pw =~ ^[A-Za-z0-9]+$ ]] || svc_die "$STATE/password must be letters and digits only"
  admin_sql "$1" <<SQL
SELECT CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = '$APP')
            THEN 'ALTER ROLE $APP WITH LOGIN PASSWORD ''$pw'''
            ELSE 'CREATE ROLE $APP WITH LOGIN PASSWORD ''$pw''' END \gexec
SELECT 'CREATE DATABASE $APP OWNER $APP'
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$APP') \gexec
SQL
}

# stop_cluster: stops the server on DATA, if one runs. pg_ctl first; when that fails, the
# postmaster whose pid and command line check out gets SIGINT (fast), SIGQUIT, SIGKILL.
stop_cluster() {
  local pid
  pid=$(postmaster_pid) || return 0
  local owner
  owner=$(stat -c %U "$DATA")
  if ! (OWNER=$owner && as_owner "$BIN/pg_ctl" stop -D "$DATA" -m fast -w -t 60 >/dev/null 2>&1); then
    svc_log "pg_ctl stop failed; signalling the postmaster (pid $pid) myself"
    svc_terminate "$pid" "INT:20 QUIT:5 KILL:5" "bin/postgres" "-D $DATA" ||
      svc_die "could not stop the postmaster (pid $pid)"
  fi
  svc_log "stopped (pid $pid)"
}

# clear_stale_lock: a server that died hard leaves DATA/postmaster.pid behind. PostgreSQL
# itself refuses to start while the pid in it exists — and a killed postmaster can stay a
# zombie for a while when init is slow to reap. When that pid is no postmaster of DATA and
# no live process works in DATA (every PostgreSQL process has DATA as its cwd), the file is
# stale and is moved aside.
clear_stale_lock() {
  [ -f "$DATA/postmaster.pid" ] || return 0
  local pid='' p
  read -r pid <"$DATA/postmaster.pid" || true
  svc_pid_is "$pid" "bin/postgres" "-D $DATA" && return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/cwd" 2>/dev/null)" = "$DATA" ] || continue
    svc_start_ticks "${p#/proc/}" >/dev/null || continue # zombies hold nothing
    svc_log "process ${p#/proc/} still works in $DATA; leaving postmaster.pid for PostgreSQL to judge"
    return 0
  done
  svc_log "the server died without cleaning up (pid $pid); removing its stale postmaster.pid"
  mv -f "$DATA/postmaster.pid" "$DATA/postmaster.pid.stale"
}

# --- commands -----------------------------------------------------------------------------

cmd_start() {
  local port=$2
  svc_check_port_arg "$port"
  need_postgres
  layout "$1"
  pick_owner
  mkdir -p "$STATE"
  svc_lock_state "$STATE"
  place_cluster

  local pid
  if pid=$(postmaster_pid); then
    local running
    running=$(cat "$STATE/port" 2>/dev/null || echo '?')
    [ "$running" = "$port" ] ||
      svc_die "the cluster in $STATE already runs on port $running; stop it before using port $port"
    svc_log "already running on 127.0.0.1:$port (pid $pid)"
    ensure_app "$port" || svc_die "the running server refused the role/database check"
    url
    return 0
  fi

  svc_port_busy "$port" && svc_die "port $port is already in use"
  clear_stale_lock
  if [ ! -f "$DATA/PG_VERSION" ]; then
    if [ -e "$DATA" ] && [ -n "$(ls -A "$DATA" 2>/dev/null)" ]; then
      svc_die "$DATA is not empty but holds no cluster; run: postgres.sh destroy $STATE"
    fi
    create_cluster
  fi
  if [ ! -s "$STATE/admin-password" ] || [ ! -s "$STATE/password" ]; then
    svc_die "the cluster's passwords are missing from $STATE; run: postgres.sh destroy $STATE"
  fi
  ensure_tls
  write_settings "$port"
  echo "$port" >"$STATE/port"
  local log=$DATA/server.log
  [ "$log" = "$STATE/server.log" ] || ln -sfn "$log" "$STATE/server.log"

  local t0=$EPOCHREALTIME
  trap 'started_ok || { svc_log "start failed; stopping what it started"; stop_cluster || true; }' EXIT
  if ! as_owner "$BIN/pg_ctl" start -D "$DATA" -l "$log" -w -t 90 -s >/dev/null; then
    tail -n 25 "$log" >&2 2>/dev/null || true
    svc_die "PostgreSQL did not start (log: $log)"
  fi
  read -r pid <"$DATA/postmaster.pid" || svc_die "no postmaster.pid after pg_ctl start"
  svc_record_pid "$STATE/server.pid" "$pid"
  local i=0
  until "$BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 2; do
    i=$((i + 1))
    [ "$i" -lt 60 ] || svc_die "pg_isready never succeeded on 127.0.0.1:$port"
    sleep 0.25
  done
  ensure_app "$port" || svc_die "could not create role and database $APP"
  STARTED=1
  svc_log "PostgreSQL ready on 127.0.0.1:$port in $(svc_elapsed "$t0") s (pid $pid, data $DATA)"
  url
}
started_ok() { [ "${STARTED:-0}" = 1 ]; }

cmd_stop() {
  layout "$1"
  if [ ! -d "$STATE" ]; then
    svc_log "$STATE does not exist; nothing to stop"
    return 0
  fi
  svc_lock_state "$STATE"
  BIN=$(pg_bin_dir) || BIN=/usr/lib/postgresql/$PG_MAJOR/bin
  if postmaster_pid >/dev/null; then
    stop_cluster
  else
    svc_log "not running ($STATE)"
  fi
  rm -f "$STATE/server.pid"
}

cmd_url() {
  layout "$1"
  url
}

cmd_destroy() {
  cmd_stop "$1"
  [ -d "$STATE" ] || return 0
  if [ -L "$STATE/pgdata" ]; then
    case $DATA in
      "$OUTSIDE_ROOT"/*) rm -rf -- "$DATA" ;;
      *) svc_log "leaving $DATA alone (not under $OUTSIDE_ROOT)" ;;
    esac
  fi
  rm -rf -- "$STATE/pgdata"
  rm -f -- "$STATE/password" "$STATE/admin-password" "$STATE/port" "$STATE/server.pid" \
    "$STATE/server.log" "$STATE/initdb.log" "$STATE/.lock"
  svc_log "destroyed the cluster of $STATE"
}

case "${1:-}:$#" in
  start:3) cmd_start "$2" "$3" ;;
  stop:2) cmd_stop "$2" ;;
  url:2) cmd_url "$2" ;;
  destroy:2) cmd_destroy "$2" ;;
  *) usage ;;
esac
