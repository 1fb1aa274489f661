#!/usr/bin/env bash
# check-unit.sh ATTACH_BINARY: checks contrib/attach.service with `systemd-analyze verify`
# (installing systemd's tools when missing), its ExecStart pointed at ATTACH_BINARY instead of
# /usr/local/bin/attach so the check needs no installed copy. Run by `make test`.
set -euo pipefail
binary=${1:?usage: check-unit.sh ATTACH_BINARY}
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v systemd-analyze >/dev/null; then
  # shellcheck source=scripts/apt-lib.sh
  . "$root/scripts/apt-lib.sh"
  apt_install "to check the systemd unit" systemd
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|/usr/local/bin/attach|$(realpath "$binary")|" "$root/contrib/attach.service" >"$work/attach.service"
if output=$(systemd-analyze verify "$work/attach.service" 2>&1) && [ -z "$output" ]; then
  echo "check-unit.sh: contrib/attach.service passes systemd-analyze verify"
else
  echo "check-unit.sh: systemd-analyze verify found problems in contrib/attach.service:" >&2
  echo "$output" >&2
  exit 1
fi
