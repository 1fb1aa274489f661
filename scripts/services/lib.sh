# shellcheck shell=bash
# lib.sh — helpers shared by postgres.sh, s3.sh and selftest.sh. Sourced, never run.
#
# The sourcing script sets SVC_NAME (the prefix of its messages) before sourcing.
# Everything here writes to stderr only: stdout belongs to the script's caller.
#
#   svc_log / svc_die                  messages; die exits 1
#   svc_install_debs PKG...            apt-get install without starting services
#   svc_port_busy / svc_port_accepts   is a TCP port taken / accepting on 127.0.0.1
#   svc_pick_ports N                   N free loopback ports
#   svc_listen_addrs PORT              where something listens on PORT
#   svc_record_pid / svc_recorded_pid  pid files that remember the process start time
#   svc_pid_is / svc_terminate         act on a pid only if its cmdline is what we expect
#   svc_detached                       run a command holding none of our descriptors
#   svc_spawn                          start a daemon detached, its own session and log
#   svc_lock_state DIR                 one start/stop at a time per state directory

: "${SVC_NAME:=services}"
readonly SVC_APT_LOCK=/var/lock/attachmentstore-services-apt.lock
readonly SVC_POLICY_RC=/usr/sbin/policy-rc.d
readonly SVC_POLICY_MARK='attachmentstore scripts/services: temporary, no daemon starts'
# Fd used for the per-DIR lock; closed in every daemon we spawn.
readonly SVC_LOCK_FD=7

svc_log() { printf '%s: %s\n' "$SVC_NAME" "$*" >&2; }
svc_die() {
  svc_log "error: $*"
  exit 1
}

svc_is_root() { [ "$(id -u)" -eq 0 ]; }

svc_random_hex() { # BYTES → 2*BYTES lowercase hex characters
  od -An -v -N "$1" -tx1 /dev/urandom | tr -d ' \n'
}

svc_check_port_arg() {
  if ! [[ $1 =~ ^[0-9]{1,5}$ ]] || [ "$1" -lt 1 ] || [ "$1" -gt 65535 ]; then
    svc_die "PORT must be a number from 1 to 65535, got '$1'"
  fi
}

# svc_abs_dir DIR: DIR as an absolute path without symlinks in its parents. Refuses
# characters that would need quoting inside the server config files we write.
svc_abs_dir() {
  local p
  p=$(realpath -m -- "$1") || svc_die "cannot resolve $1"
  case $p in
    *[[:space:]]* | *[\'\"\\%\$\`]*) svc_die "DIR may not contain whitespace, quotes, backslashes, % or \$: $p" ;;
  esac
  printf '%s\n' "$p"
}

# ---------------------------------------------------------------------------------------
# Debian packages

# _svc_no_candidate PKG: true when apt knows no installable version of PKG.
_svc_no_candidate() {
  local c
  c=$(apt-cache policy -- "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
  [ -z "$c" ] || [ "$c" = "(none)" ]
}

# svc_install_debs PKG...: installs the packages with apt-get, their services kept from
# starting (policy-rc.d), one install at a time machine-wide (flock). Not root: explains.
svc_install_debs() {
  local cmd="apt-get install -y --no-install-recommends $*"
  if ! svc_is_root; then
    svc_log "missing packages: $*"
    svc_log "installing them needs root; run:  sudo $cmd"
    svc_die "required packages are not installed"
  fi
  local out status=0
  out=$(mktemp /tmp/attachmentstore-apt.XXXXXX)
  (
    exec 6>"$SVC_APT_LOCK"
    if ! flock -n 6; then
      svc_log "waiting for another install to finish (lock $SVC_APT_LOCK)"
      flock -w 1200 6 || svc_die "gave up waiting for $SVC_APT_LOCK"
    fi
    local own_policy=0
    if [ ! -e "$SVC_POLICY_RC" ]; then
      printf '#!/bin/sh\n# %s\nexit 101\n' "$SVC_POLICY_MARK" >"$SVC_POLICY_RC"
      chmod 0755 "$SVC_POLICY_RC"
      own_policy=1
    fi
    # Remove the policy on any exit of this subshell — only ours, and only if still ours.
    if [ "$own_policy" = 1 ]; then
      trap 'grep -qF "$SVC_POLICY_MARK" "$SVC_POLICY_RC" 2>/dev/null && rm -f "$SVC_POLICY_RC"' EXIT
    fi
    trap 'exit 130' INT
    trap 'exit 143' TERM

    export DEBIAN_FRONTEND=noninteractive
    local opts=(-q -y --no-install-recommends -o DPkg::Lock::Timeout=600
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    local p refresh=0
    for p in "$@"; do _svc_no_candidate "$p" && refresh=1; done
    if [ "$refresh" = 1 ]; then
      svc_log "apt knows no version of some of: $*; running apt-get update"
      apt-get -q -o DPkg::Lock::Timeout=600 update >>"$out" 2>&1 ||
        svc_log "apt-get update failed (trying the install anyway)"
    fi
    svc_log "running: $cmd"
    if apt-get install "${opts[@]}" "$@" >>"$out" 2>&1; then exit 0; fi
    svc_log "apt-get install failed; refreshing the package lists and trying once more"
    apt-get -q -o DPkg::Lock::Timeout=600 update >>"$out" 2>&1 || true
    apt-get install "${opts[@]}" "$@" >>"$out" 2>&1
  ) || status=$?
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$out" >&2 || true
    rm -f "$out"
    svc_die "could not install: $* (the command was: $cmd)"
  fi
  rm -f "$out"
}

# ---------------------------------------------------------------------------------------
# Ports

# _svc_sockets: one line per local TCP socket (IPv4 and IPv6): HEXADDR DECPORT HEXSTATE
# (state 0A is LISTEN).
_svc_sockets() {
  local f sl local_addr _remote state _rest
  for f in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$f" ] || continue
    while read -r sl local_addr _remote state _rest; do
      [ "$sl" = sl ] && continue
      printf '%s %d %s\n' "${local_addr%:*}" "$((16#${local_addr##*:}))" "$state"
    done <"$f"
  done
}

# svc_port_accepts PORT: something accepts TCP connections on 127.0.0.1:PORT.
svc_port_accepts() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# svc_port_busy PORT: something listens on PORT (any address) or accepts on loopback.
svc_port_busy() {
  local _addr port state
  while read -r _addr port state; do
    [ "$state" = 0A ] && [ "$port" = "$1" ] && return 0
  done < <(_svc_sockets)
  svc_port_accepts "$1"
}

# svc_pick_ports N [AVOID...]: prints N distinct ports (one line, space separated) that no
# local socket uses now and that are not among AVOID, below the kernel's ephemeral range
# so outgoing connections do not take them later.
svc_pick_ports() {
  local n=$1 lo=20000 hi=32000 used picked=() p tries=0
  shift
  used=" $* $(_svc_sockets | cut -d' ' -f2 | sort -un | tr '\n' ' ') "
  while [ "${#picked[@]}" -lt "$n" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 10000 ] || svc_die "found no free ports"
    p=$((lo + SRANDOM % (hi - lo)))
    [[ $used == *" $p "* ]] && continue
    used+="$p "
    picked+=("$p")
  done
  echo "${picked[*]}"
}

# svc_listen_addrs PORT: local addresses listening on PORT, one per line, as
# 127.0.0.1 / 0.0.0.0 for IPv4 and the raw hex for IPv6.
svc_listen_addrs() {
  local addr port state
  while read -r addr port state; do
    if [ "$state" != 0A ] || [ "$port" != "$1" ]; then continue; fi
    if [ "${#addr}" -eq 8 ]; then # little-endian IPv4
      printf '%d.%d.%d.%d\n' "$((16#${addr:6:2}))" "$((16#${addr:4:2}))" \
        "$((16#${addr:2:2}))" "$((16#${addr:0:2}))"
    else
      echo "ipv6:$addr"
    fi
  done < <(_svc_sockets)
}

# ---------------------------------------------------------------------------------------
# Processes: we only ever signal a pid we recorded (or read from a server's own pid file)
# after checking that /proc/PID/cmdline is the command we started. Never by name.

# svc_start_ticks PID: the process start time (field 22 of /proc/PID/stat).
svc_start_ticks() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  local fields=()
  read -r -a fields <<<"${stat##*) }" # the command name may hold spaces and parentheses
  [ "${fields[0]}" != Z ] || return 1  # a zombie is as good as gone
  echo "${fields[19]}"
}

# svc_pid_is PID NEEDLE...: PID is alive and its command line contains every NEEDLE.
svc_pid_is() {
  local pid=$1 cmdline needle
  shift
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  svc_start_ticks "$pid" >/dev/null || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [ -n "$cmdline" ] || return 1
  for needle in "$@"; do
    [[ $cmdline == *"$needle"* ]] || return 1
  done
}

# svc_record_pid FILE PID: remembers PID with its start time, so a later reuse of the
# number by another process is not mistaken for ours.
svc_record_pid() {
  local ticks
  ticks=$(svc_start_ticks "$2") || ticks=0
  printf '%s %s\n' "$2" "$ticks" >"$1"
}

# svc_recorded_pid FILE NEEDLE...: prints the pid in FILE when that process still runs,
# started when recorded, with every NEEDLE in its command line.
svc_recorded_pid() {
  local file=$1 pid ticks now
  shift
  [ -f "$file" ] || return 1
  read -r pid ticks <"$file" 2>/dev/null || return 1
  svc_pid_is "$pid" "$@" || return 1
  now=$(svc_start_ticks "$pid") || return 1
  [ "${ticks:-0}" = 0 ] || [ "$ticks" = "$now" ] || return 1
  echo "$pid"
}

# svc_terminate PID PLAN NEEDLE...: stops PID while it still matches NEEDLE...: PLAN is a
# list of SIGNAL:SECONDS steps ("TERM:10 KILL:5"): send SIGNAL (WAIT sends none), wait up
# to SECONDS for the process to go, go on with the next step. Fails if it outlives them.
svc_terminate() {
  local pid=$1 plan=$2 step sig secs i
  shift 2
  for step in $plan; do
    sig=${step%%:*} secs=${step##*:}
    svc_pid_is "$pid" "$@" || return 0
    if [ "$sig" != WAIT ]; then # WAIT: the signal went out already; only wait
      [ "$sig" = TERM ] || svc_log "pid $pid is still running; sending SIG$sig"
      kill -s "$sig" "$pid" 2>/dev/null || return 0
    fi
    for ((i = 0; i < secs * 10; i++)); do
      svc_pid_is "$pid" "$@" || return 0
      sleep 0.1
    done
  done
  svc_pid_is "$pid" "$@" || return 0
  svc_log "pid $pid outlived the stop plan ($plan)"
  return 1
}

# _svc_close_fds: closes every descriptor above 2 of the current (sub)shell, so a daemon
# holds no pipe or lock of whoever started us (callers wait for pipes to close).
_svc_close_fds() {
  local f n
  for f in /proc/"$BASHPID"/fd/*; do
    n=${f##*/}
    if [[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi
  done
}

# svc_detached CMD...: runs CMD with stdin /dev/null and no descriptors above 2.
svc_detached() {
  (
    _svc_close_fds
    exec "$@" </dev/null
  )
}

# svc_spawn LOG PIDFILE CMD...: starts CMD in a session of its own, output appended to
# LOG, and records its pid. A background job of a non-interactive shell is no process
# group leader, so setsid execs in place and $! is the daemon itself.
svc_spawn() {
  local log=$1 pidfile=$2
  shift 2
  (
    _svc_close_fds
    exec setsid "$@" </dev/null >>"$log" 2>&1
  ) &
  svc_record_pid "$pidfile" "$!"
}

# svc_lock_state DIR: holds DIR/.lock (on fd SVC_LOCK_FD) until the script exits.
svc_lock_state() {
  eval "exec $SVC_LOCK_FD>\"\$1/.lock\""
  flock -w 180 "$SVC_LOCK_FD" || svc_die "another $SVC_NAME is busy with $1 (lock $1/.lock)"
}

# svc_elapsed T0: seconds since T0 (an EPOCHREALTIME value), with one decimal.
svc_elapsed() {
  local now=${EPOCHREALTIME/./} then=${1/./}
  local d=$(((now - then) / 100000))
  printf '%d.%d' $((d / 10)) $((d % 10))
}
