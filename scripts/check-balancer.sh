#!/usr/bin/env bash
# check-balancer.sh ATTACH_BINARY [CORPUS]: two `attach serve` processes with folders of their
# own, on one PostgreSQL catalog and one S3 bucket (both started here, in a temporary folder),
# behind nginx round-robin — "Several servers behind a load balancer" in docs/scaling-out.md —
# and proves:
#   - a login through the balancer is accepted by both servers while browsing;
#   - a tus upload whose requests alternate between the servers completes, and the original
#     read back through the balancer is byte-identical;
#   - a PATCH to one server that goes silent (its socket left open, nothing more sent) is taken
#     over from the other: HEAD there answers with every byte the silent request delivered, and
#     the rest sent there finishes the upload byte-identical;
#   - with the object store stopped, /health/ready answers 503 on both servers (and
#     /health/live still 200), naming nothing inside.
# Installs nginx and curl when missing. Run by `make test`.
set -euo pipefail
binary=$(realpath "${1:?usage: check-balancer.sh ATTACH_BINARY [CORPUS]}")
corpus=${2:-${ATTACH_CORPUS:-$(cd "$(dirname "$0")/.." && pwd)/.cache/corpus}}
root=$(cd "$(dirname "$0")/.." && pwd)
services=$root/scripts/services
photo="$corpus/special/large-16mb.jpg"
[ -f "$photo" ] || { echo "check-balancer.sh: $photo is missing; run make corpus" >&2; exit 1; }

need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  # shellcheck source=scripts/apt-lib.sh
  . "$root/scripts/apt-lib.sh"
  apt_install "to run two servers behind nginx" "${need[@]}"
fi
# shellcheck source=scripts/nginx-lib.sh
. "$root/scripts/nginx-lib.sh"
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/attach-balancer.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$services/s3.sh" stop "$work/s3" >/dev/null 2>&1 || true
  "$services/postgres.sh" stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "check-balancer.sh: $*" >&2
  for log in a.log b.log nginx-error.log; do
    [ -s "$work/$log" ] && { echo "--- $log" >&2; tail -n 20 "$work/$log" >&2; }
  done
  exit 1
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The shared backend: one bucket, one catalog.
while IFS= read -r line; do
  case $line in S3_*=*) export "${line?}" ;; esac
done < <("$services/s3.sh" start "$work/s3" "$(free_port)")
[ -n "${S3_ENDPOINT:-}" ] || fail "s3.sh printed no S3_ENDPOINT"
pg_url=$("$services/postgres.sh" start "$work/pg" "$(free_port)")
backend=(--catalog "$pg_url?schema=balanced" --blobs "s3://$S3_BUCKET/balanced")
(umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$work/token")
token=$(cat "$work/token")
"$binary" init --store "$work/a" "${backend[@]}" >/dev/null

port_a=$(free_port); port_b=$(free_port); port_lb=$(free_port)
"$binary" serve --store "$work/a" --port "$port_a" --token-file "$work/token" --trusted-proxy 127.0.0.1 "${backend[@]}" \
  >"$work/a.out" 2>"$work/a.log" &
pids+=($!)
"$binary" serve --store "$work/b" --port "$port_b" --token-file "$work/token" --trusted-proxy 127.0.0.1 "${backend[@]}" \
  >"$work/b.out" 2>"$work/b.log" &
pids+=($!)

# The upstream of docs/scaling-out.md, on this machine's ports.
nginx_start "$work" "$(cat <<NGINX
  upstream attach {
    server 127.0.0.1:$port_a max_fails=2 fail_timeout=5s;
    server 127.0.0.1:$port_b max_fails=2 fail_timeout=5s;
    keepalive 16;
  }
  server {
    listen 127.0.0.1:$port_lb;
    client_max_body_size 0;
    proxy_request_buffering off;
    proxy_buffering off;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host \$host;
    proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
    add_header X-Upstream \$upstream_addr always;
    location / { proxy_pass http://attach; }
  }
NGINX
)" || fail "nginx refuses the configuration"
pids+=("$nginx_pid")
lb="http://127.0.0.1:$port_lb"

for port in "$port_a" "$port_b"; do
  for _ in $(seq 1 150); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health/ready" 2>/dev/null)" = 200 ] && break
    sleep 0.2
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health/ready")" = 200 ] || fail "the server on port $port is not ready"
done

# A login through the balancer, then browsing: each request may go to either server.
cookie=$(curl -sS -D - -o /dev/null -d "token=$token" "$lb/login" | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\).*/\1/p' | head -n1)
[ -n "$cookie" ] || fail "the login through the balancer set no cookie"
browsed=()
for _ in 1 2 3 4; do
  read -r code upstream < <(curl -sS -o /dev/null -w '%{http_code} %header{x-upstream}\n' -b "$cookie" "$lb/api/notes")
  [ "$code" = 200 ] || fail "browsing with the balancer's cookie answered $code on $upstream"
  browsed+=("$upstream")
done
[ "$(printf '%s\n' "${browsed[@]}" | sort -u | wc -l)" = 2 ] || fail "browsing reached only ${browsed[*]}"

# A tus upload of the 16 MB photo in 4 MiB requests through the balancer, alternating servers.
api() { curl -sS -H "Authorization: Bearer $token" "$@"; }
note=$(api -X POST -H 'Content-Type: application/json' -d '{"title":"Behind a balancer"}' "$lb/api/notes" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
size=$(stat -c %s "$photo")
b64() { printf '%s' "$1" | base64 -w0; }
location=$(api -D - -o /dev/null -X POST -H 'Tus-Resumable: 1.0.0' -H "Upload-Length: $size" \
  -H "Upload-Metadata: noteId $(b64 "$note"),filename $(b64 balanced.jpg)" "$lb/api/uploads" \
  | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
[[ $location == /api/uploads/* ]] || fail "creating the upload gave no Location"
offset=0 chunk=$((4 << 20)) patched=() attachment=""
while [ "$offset" -lt "$size" ]; do
  dd if="$photo" of="$work/chunk" iflag=skip_bytes,count_bytes skip="$offset" count="$chunk" bs=1M status=none
  api -D "$work/headers" -o /dev/null -X PATCH -H 'Tus-Resumable: 1.0.0' -H "Upload-Offset: $offset" \
    -H 'Content-Type: application/offset+octet-stream' --data-binary "@$work/chunk" "$lb$location"
  tr -d '\r' <"$work/headers" >"$work/h"
  grep -q '^HTTP/1.1 204' "$work/h" || fail "PATCH at $offset answered $(head -n1 "$work/h")"
  from=$offset
  offset=$(sed -n 's/^[Uu]pload-[Oo]ffset: //p' "$work/h")
  patched+=("$(sed -n 's/^[Xx]-[Uu]pstream: //p' "$work/h")")
  attachment=$(sed -n 's/^[Aa]ttachment-[Ii]d: //p' "$work/h")
  echo "check-balancer.sh: PATCH at $from: 204, Upload-Offset $offset, served by ${patched[-1]}${attachment:+, Attachment-Id $attachment}"
done
[ "$(printf '%s\n' "${patched[@]}" | sort -u | wc -l)" = 2 ] || fail "the upload's requests reached only ${patched[*]}"
[ -n "$attachment" ] || fail "the last PATCH named no attachment"
api -o "$work/original.jpg" "$lb/api/attachments/$attachment/original"
cmp -s "$photo" "$work/original.jpg" || fail "the original read through the balancer differs from the upload"

# A silent cut: a PATCH to server A delivers 3 MiB and then nothing, its socket left open (a
# phone that left Wi-Fi). The client comes back through the other server: HEAD on B asks A,
# through the catalog, to hand the upload over, and answers with every byte A received.
silent_location=$(api -D - -o /dev/null -X POST -H 'Tus-Resumable: 1.0.0' -H "Upload-Length: $size" \
  -H "Upload-Metadata: noteId $(b64 "$note"),filename $(b64 silent.jpg)" "$lb/api/uploads" \
  | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
[[ $silent_location == /api/uploads/* ]] || fail "creating the second upload gave no Location"
delivered=$((3 << 20))
python3 - "$port_a" "$silent_location" "$token" "$photo" "$size" "$delivered" >"$work/silent.out" 2>&1 <<'PY' &
import socket, sys, time
port, path, token, photo, size, delivered = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
head = (f"PATCH {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nTus-Resumable: 1.0.0\r\n"
        f"Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: {size}\r\n\r\n").encode()
with open(photo, "rb") as f:
    body = f.read(delivered)
connection = socket.create_connection(("127.0.0.1", int(port)))
connection.sendall(head + body)
print("sent", flush=True)
time.sleep(300)  # silent: never another byte, never a close
PY
silent_pid=$!
pids+=("$silent_pid")
for _ in $(seq 1 100); do grep -q sent "$work/silent.out" 2>/dev/null && break; sleep 0.1; done
grep -q sent "$work/silent.out" || fail "the silent client did not send: $(cat "$work/silent.out")"
asked=$(date +%s.%N)
api -D "$work/headers" -o /dev/null -I -H 'Tus-Resumable: 1.0.0' "http://127.0.0.1:$port_b$silent_location"
answered=$(date +%s.%N)
held=$(tr -d '\r' <"$work/headers" | sed -n 's/^[Uu]pload-[Oo]ffset: //p')
waited=$(python3 -c "print(f'{$answered - $asked:.2f}')")
[ "$held" = "$delivered" ] || fail "after a silent cut on A, HEAD on B answered Upload-Offset ${held:-none}, not $delivered"
dd if="$photo" of="$work/rest" iflag=skip_bytes skip="$delivered" bs=1M status=none
api -D "$work/headers" -o /dev/null -X PATCH -H 'Tus-Resumable: 1.0.0' -H "Upload-Offset: $delivered" \
  -H 'Content-Type: application/offset+octet-stream' --data-binary "@$work/rest" "http://127.0.0.1:$port_b$silent_location"
tr -d '\r' <"$work/headers" >"$work/h"
grep -q '^HTTP/1.1 204' "$work/h" || fail "the rest of the silent upload on B answered $(head -n1 "$work/h")"
silent_attachment=$(sed -n 's/^[Aa]ttachment-[Ii]d: //p' "$work/h")
api -o "$work/silent.jpg" "$lb/api/attachments/$silent_attachment/original"
cmp -s "$photo" "$work/silent.jpg" || fail "the upload finished after a silent cut differs from the photo"
echo "check-balancer.sh: a PATCH to A silent after $delivered bytes: HEAD on B answered Upload-Offset $held in $waited s; the rest on B finished it byte-identical"

# The object store goes away: neither server is ready, both are alive, and the answer names
# nothing inside.
"$services/s3.sh" stop "$work/s3" >/dev/null 2>&1
for port in "$port_a" "$port_b"; do
  for _ in $(seq 1 50); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health/ready")" = 503 ] && break
    sleep 0.2
  done
  answer=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$port/health/ready")
  [[ $answer == *' 503' ]] || fail "with the object store stopped, /health/ready on $port answered $answer"
  if grep -q -e 127.0.0.1 -e s3:// -e postgres <<<"$answer"; then fail "/health/ready names an internal address: $answer"; fi
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health/live")" = 200 ] || fail "/health/live on $port is not 200"
done

echo "check-balancer.sh: two servers on one PostgreSQL and one bucket behind nginx round-robin: a login served by both," \
  "a $size-byte tus upload in ${#patched[@]} requests over ${patched[*]} byte-identical, a silent PATCH on A taken over from B in $waited s," \
  "/health/ready 503 on both with the object store stopped"
