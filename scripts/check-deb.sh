#!/usr/bin/env bash
# check-deb.sh OLD.deb NEW.deb CORPUS: installs the package into a fresh Debian root made by
# debootstrap (no checkout, no Swift toolchain inside), with apt fetching its Depends from the
# Debian mirror, and checks it the way a self-hoster would:
#
#   - the system user, /var/lib/attach (0700, the user's) and /etc/attach/token (0600) exist;
#   - `attach serve` started as the unit starts it (its ExecStart, as its User, the settings and
#     token handed over as systemd's credentials are) serves /health/ready, the web UI, its
#     static files and the API; a note with a photo goes in;
#   - an admin command run as root there works as the user `attach`;
#   - NEW.deb (a later version) upgrades it in place: the store, the token and an edited
#     attach.conf are kept, the note and its photo are still served, `attach verify` is clean;
#   - `systemd-analyze verify` accepts the installed unit.
#
# Needs root (debootstrap, chroot, mount). The root lives under .build/deb-root and is removed
# at the end. DEB_MIRROR overrides the mirror (default: the one apt here uses).
set -euo pipefail
old=$(realpath "${1:?usage: check-deb.sh OLD.deb NEW.deb CORPUS}")
new=$(realpath "${2:?usage: check-deb.sh OLD.deb NEW.deb CORPUS}")
corpus=$(realpath "${3:?usage: check-deb.sh OLD.deb NEW.deb CORPUS}")
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/apt-lib.sh
. "$here/scripts/apt-lib.sh"
command -v debootstrap >/dev/null || apt_install "to test the Debian package" debootstrap
command -v systemd-analyze >/dev/null || apt_install "to check the installed unit" systemd
mirror=${DEB_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)}
mirror=${mirror:-http://deb.debian.org/debian}

root="$here/.build/deb-root"
server=
cleanup() {
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$root"
}
trap cleanup EXIT
cleanup
mkdir -p "$root"

passed=0 failed=0
check() { # NAME COMMAND...: runs COMMAND, prints PASS or FAIL
  local name=$1
  shift
  if "$@"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    failed=$((failed + 1))
  fi
}
in_root() { chroot "$root" "$@"; }

t0=$(date +%s)
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
  { tail -n 20 "$root.log" >&2; echo "check-deb.sh: debootstrap failed (log: $root.log)" >&2; exit 1; }
echo "check-deb.sh: a fresh Debian bookworm root in $(($(date +%s) - t0)) s"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
check "the root has no Swift toolchain" test ! -e "$root/usr/bin/swift" -a ! -e "$root/opt/swift"

install_package() { # DEB: apt installs it with its Depends from the mirror
  cp "$1" "$root/tmp/attach.deb"
  in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/attach.deb >"$root.apt.log" 2>&1 ||
    { tail -n 20 "$root.apt.log" >&2; return 1; }
}
t0=$(date +%s)
in_root apt-get update -q >"$root.apt.log" 2>&1
check "apt installs the package and its dependencies" install_package "$old"
echo "check-deb.sh: installed in $(($(date +%s) - t0)) s"
check "the system user attach exists" in_root getent passwd attach >/dev/null
# Numbers, not names: the host's password file does not know the root's users.
check "/var/lib/attach is the user's, mode 0700" test "$(stat -c '%u %a' "$root/var/lib/attach")" = "$(in_root id -u attach) 700"
check "/etc/attach/token is root's, mode 0600, not empty" test "$(stat -c '%U %a' "$root/etc/attach/token")" = "root 600" -a -s "$root/etc/attach/token"
check "/etc/attach/attach.conf is a conffile" grep -qx /etc/attach/attach.conf "$root/var/lib/dpkg/info/attach.conffiles"
token=$(cat "$root/etc/attach/token")

unit="$root/lib/systemd/system/attach.service"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
user=$(sed -n 's/^User=//p' "$unit")
check "the unit runs /usr/bin/attach serve as attach" test "$exec_start|$user" = "/usr/bin/attach serve|attach"
analyze() { # systemd-analyze verify with ExecStart's binary found inside the root
  local copy
  copy=$(mktemp -d)
  sed "s|^ExecStart=/usr/bin/attach|ExecStart=$root/usr/bin/attach|" "$unit" >"$copy/attach.service"
  local output
  output=$(systemd-analyze verify "$copy/attach.service" 2>&1) || { echo "$output" >&2; rm -rf "$copy"; return 1; }
  rm -rf "$copy"
  [ -z "$output" ] || { echo "$output" >&2; return 1; }
}
check "systemd-analyze verify accepts the installed unit" analyze

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_service() { # as the unit does: its user, its command line, the credentials in a folder of theirs
  local credentials=/run/credentials/attach.service
  install -d -m 0700 "$root$credentials"
  install -m 0400 "$root/etc/attach/attach.conf" "$root$credentials/attach.conf"
  install -m 0400 "$root/etc/attach/token" "$root$credentials/token"
  local ids
  ids=$(in_root id -u attach):$(in_root id -g attach)
  chown -R "$ids" "$root$credentials"
  # shellcheck disable=SC2086 # ExecStart is words
  chroot --userspec="$ids" "$root" env -i PATH=/usr/bin:/bin HOME=/var/lib/attach \
    ATTACH_CONFIG="$credentials/attach.conf" ATTACH_TOKEN_FILE="$credentials/token" ATTACH_PORT="$port" \
    $exec_start >"$root/tmp/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 150); do curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && return 0; sleep 0.1; done
  cat "$root/tmp/serve.log" >&2
  return 1
}
stop_service() {
  kill -TERM "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=
}
api() { curl -fsS -H "Authorization: Bearer $token" "$@"; }

check "attach serve starts from the unit's command line" start_service
check "it answers /health/ready" grep -q '"status"' <(curl -fsS "http://127.0.0.1:$port/health/ready")
check "it renders the web UI" grep -q '<html' <(curl -fsS "http://127.0.0.1:$port/login")
check "it sends app.js" grep -q 'function' <(api "http://127.0.0.1:$port/static/app.js")
check "it sends app.css" grep -q '{' <(api "http://127.0.0.1:$port/static/app.css")
check "the API refuses a request without the token" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/notes")" = 401
note=$(api -X POST -H 'Content-Type: application/json' -d '{"title":"Packaged"}' "http://127.0.0.1:$port/api/notes" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
photo="$corpus/good/Dune.jpg"
api -X POST -H 'Content-Type: image/jpeg' --data-binary @"$photo" \
  "http://127.0.0.1:$port/api/notes/$note/attachments?filename=Dune.jpg" >"$root/tmp/attachment.json"
attachment=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$root/tmp/attachment.json")
same_photo() { api "http://127.0.0.1:$port/api/attachments/$attachment/original" | cmp -s - "$photo"; }
check "a photo uploaded to it comes back byte for byte" same_photo
thumbnail() { # libvips, loaded from the root's libvips42, renders it
  local type
  for _ in $(seq 100); do
    type=$(api -o /dev/null -w '%{http_code} %{content_type}' "http://127.0.0.1:$port/api/attachments/$attachment/thumbnail?size=200")
    case $type in "200 image/"*) return 0 ;; esac
    sleep 0.2
  done
  echo "thumbnail: $type" >&2
  return 1
}
check "its thumbnail is rendered by libvips inside the root" thumbnail
stop_service

check "an admin command run as root works as attach" grep -q "running as attach" <(in_root /usr/bin/attach stats --config /etc/attach/attach.conf 2>&1)
check "nothing in the store is root's after it" test -z "$(find "$root/var/lib/attach" -not -user "$(stat -c %u "$root/var/lib/attach")" | head -n1)"

echo "# edited by the test" >>"$root/etc/attach/attach.conf"
t0=$(date +%s)
check "the newer package upgrades it in place" install_package "$new"
echo "check-deb.sh: upgraded in $(($(date +%s) - t0)) s"
check "the upgrade installed the newer version" test "$(in_root dpkg-query -W -f '${Version}' attach)" = "$(dpkg-deb -f "$new" Version)"
check "the upgrade kept the token" test "$(cat "$root/etc/attach/token")" = "$token"
check "the upgrade kept the edited attach.conf" grep -q '^# edited by the test$' "$root/etc/attach/attach.conf"
check "attach serve starts again after the upgrade" start_service
check "the note is still there" grep -q '"Packaged"' <(api "http://127.0.0.1:$port/api/notes")
check "its photo is still served byte for byte" same_photo
stop_service
check "attach verify finds the store clean after the upgrade" grep -q '^clean: 1 blobs' <(in_root /usr/bin/attach verify --config /etc/attach/attach.conf 2>/dev/null)

echo "deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
