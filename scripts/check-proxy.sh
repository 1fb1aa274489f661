#!/usr/bin/env bash
# check-proxy.sh ATTACH_BINARY [CORPUS]: runs contrib/nginx.conf — its ports, server name,
# certificate and upstream rewritten for a temporary folder, nothing else changed — in front of
# a real `attach serve`, and proves through it, over TLS:
#   - plain HTTP is redirected to HTTPS;
#   - a 16 MB photo uploaded whole and again chunked is stored byte for byte, and nginx spooled
#     neither upload nor any answer to disk (it would say so in its log at level warn);
#   - the original comes back whole and as a Range (206), byte-identical;
#   - attach logs the client's own address, not the X-Forwarded-For the client forged;
#   - a browser write from the public origin is accepted, one from another site refused.
# Installs nginx, openssl and curl when missing. Run by `make test`.
set -euo pipefail
binary=$(realpath "${1:?usage: check-proxy.sh ATTACH_BINARY [CORPUS]}")
corpus=${2:-${ATTACH_CORPUS:-$(cd "$(dirname "$0")/.." && pwd)/.cache/corpus}}
root=$(cd "$(dirname "$0")/.." && pwd)
photo="$corpus/special/large-16mb.jpg"
[ -f "$photo" ] || { echo "check-proxy.sh: $photo is missing; run make corpus" >&2; exit 1; }

need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  # shellcheck source=scripts/apt-lib.sh
  . "$root/scripts/apt-lib.sh"
  apt_install "to check contrib/nginx.conf" "${need[@]}"
fi
# shellcheck source=scripts/nginx-lib.sh
. "$root/scripts/nginx-lib.sh"
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "check-proxy.sh: $*" >&2
  for log in attach.log nginx-error.log; do
    [ -s "$work/$log" ] && { echo "--- $log" >&2; tail -n 20 "$work/$log" >&2; }
  done
  exit 1
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
attach_port=$(free_port); tls_port=$(free_port); http_port=$(free_port)
name=photos.test
public="https://$name:$tls_port"

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$name" -addext "subjectAltName=DNS:$name" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
(umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$work/token")
token=$(cat "$work/token")

# The site file as shipped, pointed at this folder's ports and certificate.
sed -e "s|listen 443 ssl http2;|listen 127.0.0.1:$tls_port ssl http2;|" \
    -e "s|listen 80;|listen 127.0.0.1:$http_port;|" \
    -e '/listen \[::\]:/d' \
    -e "s|photos.example.com;|$name;|" \
    -e "s|/etc/letsencrypt/live/photos.example.com/fullchain.pem|$work/cert.pem|" \
    -e "s|/etc/letsencrypt/live/photos.example.com/privkey.pem|$work/key.pem|" \
    -e "s|server 127.0.0.1:8080;|server 127.0.0.1:$attach_port;|" \
    "$root/contrib/nginx.conf" >"$work/site.conf"
for expected in "127.0.0.1:$tls_port ssl" "127.0.0.1:$http_port;" "$work/cert.pem" "$work/key.pem" "127.0.0.1:$attach_port;"; do
  grep -qF "$expected" "$work/site.conf" || fail "contrib/nginx.conf changed shape: could not point it at $expected"
done
nginx_start "$work" "  include $work/site.conf;" || fail "nginx refuses the configuration"
pids+=("$nginx_pid")

"$binary" serve --store "$work/store" --port "$attach_port" --token-file "$work/token" \
  --public-url "$public" --trusted-proxy 127.0.0.1 >"$work/attach.out" 2>"$work/attach.log" &
pids+=($!)

# Every request goes to nginx over TLS, from 127.0.0.3 (so the client's address differs from
# the proxy's), with the token.
through() {
  curl -sS --cacert "$work/cert.pem" --resolve "$name:$tls_port:127.0.0.1" --interface 127.0.0.3 \
    -H "Authorization: Bearer $token" "$@"
}
for _ in $(seq 1 150); do
  [ "$(through -o /dev/null -w '%{http_code}' "$public/health" 2>/dev/null)" = 200 ] && break
  sleep 0.2
done
[ "$(through -o /dev/null -w '%{http_code}' "$public/health")" = 200 ] || fail "attach did not answer through nginx"

redirect=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' --resolve "$name:$http_port:127.0.0.1" "http://$name:$http_port/api/notes")
[[ $redirect == "301 https://$name/api/notes" ]] || fail "plain HTTP was not redirected to HTTPS: $redirect"

json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
note=$(through -X POST -H 'Content-Type: application/json' -d '{"title":"Through nginx"}' "$public/api/notes" | json_field id)

whole=$(through -X POST -H 'Content-Type: image/jpeg' -H 'X-Forwarded-For: 203.0.113.66' --data-binary "@$photo" \
  "$public/api/notes/$note/attachments?filename=large.jpg" | json_field id)
chunked=$(through -X POST -H 'Content-Type: image/jpeg' -H 'Transfer-Encoding: chunked' -T "$photo" \
  "$public/api/notes/$note/attachments?filename=large-chunked.jpg" | json_field id)

for id in "$whole" "$chunked"; do
  through -o "$work/original.jpg" "$public/api/attachments/$id/original"
  cmp -s "$photo" "$work/original.jpg" || fail "the original of $id read through nginx differs from the upload"
done
status=$(through -o "$work/range.bin" -w '%{http_code}' -H 'Range: bytes=1000000-1999999' "$public/api/attachments/$whole/original")
[ "$status" = 206 ] || fail "a Range read through nginx answered $status, not 206"
cmp -s <(tail -c +1000001 "$photo" | head -c 1000000) "$work/range.bin" || fail "the Range read through nginx has the wrong bytes"

if grep -q "buffered to a temporary file" "$work/nginx-error.log"; then
  fail "nginx spooled a body to disk instead of streaming it"
fi
grep 'http.path=/api/notes/'"$note"'/attachments' "$work/attach.log" >"$work/upload-lines" || fail "attach logged no upload"
grep -q 'client.address=127.0.0.3' "$work/upload-lines" || fail "attach did not log the client's address 127.0.0.3"
if grep -q '203.0.113.66' "$work/attach.log"; then fail "attach believed the X-Forwarded-For the client forged"; fi

browser=$(through -o /dev/null -w '%{http_code}' -X POST -H "Origin: $public" -H 'Content-Type: application/json' \
  -d '{"title":"From the web UI"}' "$public/api/notes")
[ "$browser" = 201 ] || fail "a write from the public origin through nginx answered $browser, not 201"
foreign=$(through -o /dev/null -w '%{http_code}' -X POST -H 'Origin: https://attacker.example' -H 'Content-Type: application/json' \
  -d '{"title":"planted"}' "$public/api/notes")
[ "$foreign" = 403 ] || fail "a write from another site through nginx answered $foreign, not 403"

size=$(stat -c %s "$photo")
echo "check-proxy.sh: contrib/nginx.conf in front of attach serve: HTTPS redirect, $size-byte upload whole and chunked," \
  "original whole and by Range byte-identical, client address from a trusted proxy only, cross-site write refused"
