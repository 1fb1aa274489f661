#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# s3.sh — an S3-compatible store for the tests on 127.0.0.1: OpenStack Swift from Debian
# (one node, one replica, one device) behind its s3api middleware, with tempauth and
# memcached. All of its state lives in DIR.
#
#   s3.sh start DIR PORT   install Swift and memcached when missing, set up DIR (first time),
#                          start the servers with the S3 endpoint on 127.0.0.1:PORT, make
#                          sure bucket `attach` exists and answers a SigV4-signed request,
#                          then print the env lines below
#   s3.sh stop DIR         stop the processes start recorded in DIR (and only those)
#   s3.sh env DIR          print the env lines again:
#                            S3_ENDPOINT=http://127.0.0.1:PORT
#                            S3_ACCESS_KEY=attach:attach
#                            S3_SECRET_KEY=<random, kept in DIR/secret>
#                            S3_BUCKET=attach
#                            S3_REGION=us-east-1
#
# stdout carries those lines and nothing else; progress and errors go to stderr.
# See README.md in this folder.
set -euo pipefail

SVC_NAME=s3.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

readonly SWIFT_DEBS=(swift swift-proxy swift-object swift-container swift-account python3-swift memcached)
readonly TENANT=attach # tempauth account and user: the access key is "attach:attach"
readonly BUCKET=attach
readonly REGION=us-east-1
readonly BACKENDS=(account container object) # Swift's storage servers, one ring each
readonly SERVICES=(memcached account container object proxy) # start order
readonly SYS_PY=/usr/bin/python3 # the interpreter Debian installs Swift for
readonly PART_POWER=8

usage() {
  echo "usage:" >&2
  sed -n 's/^#   //p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

# --- installation -------------------------------------------------------------------------

swift_present() {
  local b
  for b in "${BACKENDS[@]}" proxy; do [ -x "/usr/bin/swift-$b-server" ] || return 1; done
  [ -x /usr/bin/memcached ] && [ -x "$SYS_PY" ] &&
    "$SYS_PY" -c 'import swift.common.middleware.s3api.s3api, swift.common.ring' 2>/dev/null
}

need_swift() {
  if ! swift_present; then
    svc_log "Swift/memcached are not installed"
    local t0=$EPOCHREALTIME
    svc_install_debs "${SWIFT_DEBS[@]}"
    svc_log "installed ${SWIFT_DEBS[*]} in $(svc_elapsed "$t0") s"
    swift_present || svc_die "Swift is still incomplete after installing ${SWIFT_DEBS[*]}"
  fi
  # Every Swift process reads /etc/swift/swift.conf (the path is built into Swift): hash
  # path prefix/suffix and storage policies. Debian ships one; write one if it is gone.
  if [ ! -f /etc/swift/swift.conf ]; then
    svc_is_root || svc_die "/etc/swift/swift.conf is missing; creating it needs root"
    install -d -m 0755 /etc/swift
    cat >/etc/swift/swift.conf <<EOF
# written by scripts/services/s3.sh (none existed)
[swift-hash]
swift_hash_path_prefix = $(svc_random_hex 8)
swift_hash_path_suffix = $(svc_random_hex 8)

[storage-policy:0]
name = Policy-0
default = yes
EOF
    svc_log "wrote /etc/swift/swift.conf"
  fi
}

# --- state --------------------------------------------------------------------------------

# layout DIR: STATE and the directories in it.
layout() {
  STATE=$(svc_abs_dir "$1")
  CONF=$STATE/conf     # server configs, rings, backend ports
  RUN=$STATE/run       # NAME.pid
  LOGS=$STATE/logs     # NAME.log
  DEVICES=$STATE/devices # Swift's "devices"; d1 is our one device
}

# ports file: "NAME PORT" lines for the backends and memcached.
port_of() {
  [ ! -f "$CONF/ports" ] || awk -v n="$1" '$1 == n { print $2 }' "$CONF/ports"
}

# needles NAME: what the command line of service NAME contains (see svc_recorded_pid).
needles() {
  case $1 in
    memcached) NEEDLES=(memcached "-l 127.0.0.1 -p $(port_of memcached) ") ;;
    *) NEEDLES=("swift-$1-server" "$CONF/$1.conf") ;;
  esac
}

pid_of() { # NAME: its pid when the recorded process is still it
  needles "$1"
  svc_recorded_pid "$RUN/$1.pid" "${NEEDLES[@]}"
}

print_env() {
  if [ ! -s "$STATE/secret" ] || [ ! -s "$STATE/port" ]; then
    svc_die "no S3 store in $STATE (run: s3.sh start $STATE PORT)"
  fi
  printf 'S3_ENDPOINT=http://127.0.0.1:%s\n' "$(<"$STATE/port")"
  printf 'S3_ACCESS_KEY=%s:%s\n' "$TENANT" "$TENANT"
  printf 'S3_SECRET_KEY=%s\n' "$(<"$STATE/secret")"
  printf 'S3_BUCKET=%s\n' "$BUCKET"
  printf 'S3_REGION=%s\n' "$REGION"
}

# bucket_ready: create the bucket if needed and prove it with signed requests.
bucket_ready() {
  S3_ENDPOINT=http://127.0.0.1:$(<"$STATE/port") S3_ACCESS_KEY=$TENANT:$TENANT \
    S3_SECRET_KEY=$(<"$STATE/secret") S3_BUCKET=$BUCKET S3_REGION=$REGION \
    "$SYS_PY" "$HERE/s3_check.py" bucket
}

# --- configuration ------------------------------------------------------------------------

# assign_ports: keeps each recorded port of the backends and memcached while nothing else
# listens on it, else takes a fresh one. Sets RINGS to the rings to (re)build: those whose
# backend moved, or that were never built for its current port.
assign_ports() {
  local name port old endpoint keep=() pool=() out=''
  endpoint=$(<"$STATE/port")
  for name in "${BACKENDS[@]}" memcached; do
    port=$(port_of "$name")
    if [ -n "$port" ] && [ "$port" != "$endpoint" ] && ! svc_port_busy "$port"; then keep+=("$port"); fi
  done
  read -r -a pool <<<"$(svc_pick_ports 4 "$endpoint" "${keep[@]}")"
  for name in "${BACKENDS[@]}" memcached; do
    old=$(port_of "$name")
    port=$old
    if [ -z "$port" ] || [[ " ${keep[*]} " != *" $port "* ]]; then
      port=${pool[0]}
      pool=("${pool[@]:1}")
      [ -z "$old" ] || svc_log "port $old of $name is taken now; moving $name to $port"
    fi
    out+="$name $port"$'\n'
  done
  printf '%s' "$out" >"$CONF/ports"
  RINGS=()
  for name in "${BACKENDS[@]}"; do
    if [ ! -s "$CONF/$name.ring.gz" ] ||
      ! grep -qx "$name $(port_of "$name")" "$CONF/ring-ports" 2>/dev/null; then
      RINGS+=("$name")
    fi
  done
}

# build_rings NAME...: one device, one replica: every partition lives on d1, so a ring
# rebuilt for a new port finds all the data already there.
build_rings() {
  [ $# -gt 0 ] || return 0
  local args=() name
  for name in "$@"; do args+=("$name" "$(port_of "$name")"); done
  svc_log "building rings: ${args[*]}"
  "$SYS_PY" - "$CONF" "$PART_POWER" "${args[@]}" <<'PY' || svc_die "building the Swift rings failed"
import os, sys
from swift.common.ring import RingBuilder

conf, part_power, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for name, port in zip(rest[::2], rest[1::2]):
    builder = RingBuilder(part_power, 1, 1)  # part power, replicas, min_part_hours
    builder.add_dev({"region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port),
                     "device": "d1", "weight": 100.0})
    builder.rebalance(seed=1)
    tmp = os.path.join(conf, ".%s.ring.gz" % name)
    builder.get_ring().save(tmp)
    os.replace(tmp, os.path.join(conf, "%s.ring.gz" % name))
PY
  grep -v '^memcached ' "$CONF/ports" >"$CONF/ring-ports"
}

# write_backend_conf NAME: config of a storage server (account, container, object).
write_backend_conf() {
  local name=$1
  cat >"$CONF/$name.conf" <<EOF
# written by scripts/services/s3.sh on every start
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $(port_of "$name")
workers = 0
user = $(id -un)
swift_dir = $CONF
devices = $DEVICES
mount_check = false
disable_fallocate = true
log_name = $name
log_level = INFO
recon_cache_path = $STATE/cache

[pipeline:main]
pipeline = healthcheck $name-server

[filter:healthcheck]
use = egg:swift#healthcheck

[app:$name-server]
use = egg:swift#$name
EOF
}

# write_proxy_conf: the S3 endpoint. s3api must come before tempauth (which checks the S3
# signature against the user's key), and slo after them: multipart uploads are SLOs.
write_proxy_conf() {
  local filter filters=(catch_errors gatekeeper healthcheck proxy_logging listing_formats
    copy slo dlo versioned_writes)
  {
    cat <<EOF
# written by scripts/services/s3.sh on every start
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $(<"$STATE/port")
workers = 0
user = $(id -un)
swift_dir = $CONF
log_name = proxy
log_level = INFO

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy_logging cache listing_formats s3api tempauth copy slo dlo versioned_writes proxy_logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = $REGION

[filter:tempauth]
use = egg:swift#tempauth
user_${TENANT}_${TENANT} = $(<"$STATE/secret") .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$(port_of memcached)
EOF
    for filter in "${filters[@]}"; do
      printf '\n[filter:%s]\nuse = egg:swift#%s\n' "$filter" "$filter"
    done
  } >"$CONF/proxy.conf"
}

# --- processes ----------------------------------------------------------------------------

launch() { # NAME
  local name=$1 user=()
  case $name in
    memcached)
      # memcached will not run as root; it drops to the user given with -u.
      if svc_is_root; then
        if id -u memcache >/dev/null 2>&1; then user=(-u memcache); else user=(-u nobody); fi
      fi
      svc_spawn "$LOGS/$name.log" "$RUN/$name.pid" \
        /usr/bin/memcached -l 127.0.0.1 -p "$(port_of memcached)" -U 0 -m 64 -c 1024 "${user[@]}"
      ;;
    *)
      svc_spawn "$LOGS/$name.log" "$RUN/$name.pid" "/usr/bin/swift-$name-server" "$CONF/$name.conf" --verbose
      ;;
  esac
}

wait_listening() { # NAME PORT
  local name=$1 port=$2 i
  for ((i = 0; i < 600; i++)); do
    svc_port_accepts "$port" && return 0
    if ! pid_of "$name" >/dev/null; then
      tail -n 25 "$LOGS/$name.log" >&2 || true
      svc_die "$name exited while starting (log: $LOGS/$name.log)"
    fi
    sleep 0.1
  done
  tail -n 25 "$LOGS/$name.log" >&2 || true
  svc_die "$name is not listening on 127.0.0.1:$port after 60 s (log: $LOGS/$name.log)"
}

# stop_services: TERM to every recorded process that is still ours, then wait for all.
stop_services() {
  local name pid pids=() stopped=()
  for name in proxy object container account memcached; do
    if pid=$(pid_of "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$name:$pid")
    fi
  done
  local entry rc=0
  for entry in "${pids[@]}"; do
    name=${entry%%:*} pid=${entry##*:}
    needles "$name"
    svc_terminate "$pid" "WAIT:10 KILL:5" "${NEEDLES[@]}" || rc=1
    stopped+=("$name($pid)")
  done
  for name in "${SERVICES[@]}"; do rm -f "$RUN/$name.pid"; done
  if [ "${#stopped[@]}" -gt 0 ]; then svc_log "stopped ${stopped[*]}"; else svc_log "not running ($STATE)"; fi
  return "$rc"
}

count_running() {
  local name n=0
  for name in "${SERVICES[@]}"; do pid_of "$name" >/dev/null && n=$((n + 1)); done
  echo "$n"
}

check_xattrs() { # Swift keeps object metadata in user.* extended attributes
  "$SYS_PY" - "$DEVICES/d1" <<'PY' 2>/dev/null ||
import os, sys, tempfile
with tempfile.NamedTemporaryFile(dir=sys.argv[1]) as f:
    os.setxattr(f.name, "user.attachmentstore.probe", b"1")
PY
    svc_die "the filesystem of $DEVICES has no user.* extended attributes, which Swift needs; use a DIR elsewhere"
}

# --- commands -----------------------------------------------------------------------------

cmd_start() {
  local port=$2
  svc_check_port_arg "$port"
  need_swift
  layout "$1"
  mkdir -p "$STATE"
  svc_lock_state "$STATE"
  mkdir -p "$CONF" "$RUN" "$LOGS" "$DEVICES/d1" "$STATE/cache"

  local running
  running=$(count_running)
  if [ "$running" = "${#SERVICES[@]}" ]; then
    [ "$(<"$STATE/port")" = "$port" ] ||
      svc_die "the store in $STATE already runs on port $(<"$STATE/port"); stop it before using port $port"
    svc_log "already running on 127.0.0.1:$port"
    bucket_ready || svc_die "the running store failed the bucket check (logs: $LOGS)"
    print_env
    return 0
  fi
  if [ "$running" -gt 0 ]; then
    svc_log "only $running of ${#SERVICES[@]} services of $STATE are alive; restarting them all"
    stop_services
  fi

  svc_port_busy "$port" && svc_die "port $port is already in use"
  local t0=$EPOCHREALTIME
  [ -s "$STATE/secret" ] || (umask 077 && svc_random_hex 20 >"$STATE/secret")
  [[ $(<"$STATE/secret") =~ ^[A-Za-z0-9]+$ ]] || svc_die "$STATE/secret must be letters and digits only"
  echo "$port" >"$STATE/port"
  check_xattrs
  assign_ports
  local name
  for name in "${BACKENDS[@]}"; do write_backend_conf "$name"; done
  write_proxy_conf

  trap 'started_ok || { svc_log "start failed; stopping what it started"; stop_services || true; }' EXIT
  svc_log "starting memcached and Swift $(dpkg-query -W -f='${Version}' python3-swift 2>/dev/null) in $STATE"
  # The storage servers need no ring, so they boot while the rings are built.
  for name in memcached "${BACKENDS[@]}"; do launch "$name"; done
  build_rings "${RINGS[@]}"
  launch proxy
  for name in memcached "${BACKENDS[@]}"; do wait_listening "$name" "$(port_of "$name")"; done
  wait_listening proxy "$port"
  if ! bucket_ready; then
    tail -n 25 "$LOGS/proxy.log" >&2 || true
    svc_die "the store started but bucket $BUCKET is not usable (logs: $LOGS)"
  fi
  [ "$(count_running)" = "${#SERVICES[@]}" ] || svc_die "a service exited during start-up (logs: $LOGS)"
  STARTED=1
  local pids=()
  for name in "${SERVICES[@]}"; do pids+=("$name:$(pid_of "$name")"); done
  svc_log "ready on http://127.0.0.1:$port in $(svc_elapsed "$t0") s (${pids[*]})"
  print_env
}
started_ok() { [ "${STARTED:-0}" = 1 ]; }

cmd_stop() {
  layout "$1"
  if [ ! -d "$RUN" ]; then
    svc_log "nothing started in $STATE"
    return 0
  fi
  svc_lock_state "$STATE"
  stop_services
}

cmd_env() {
  layout "$1"
  print_env
}

case "${1:-}:$#" in
  start:3) cmd_start "$2" "$3" ;;
  stop:2) cmd_stop "$2" ;;
  env:2) cmd_env "$2" ;;
  *) usage ;;
esac
