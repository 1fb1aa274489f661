# Sourced by the scripts that put a throwaway nginx in front of `attach serve`; never run.
#
# nginx_start WORK HTTP_BODY: writes WORK/nginx.conf — one worker, its pid, logs
# (WORK/nginx-error.log at level warn, WORK/nginx-access.log) and temporary folders all in WORK —
# with HTTP_BODY inside its http block, has nginx test it, and starts it in the foreground of a
# background job (as root, with `user root`). Sets nginx_pid. Returns 1, with nginx's words on
# stderr, when nginx refuses the configuration. Needs nginx_bin (the caller finds or installs it).
nginx_start() {
  local work=$1 body=$2 user
  mkdir -p "$work/nginx"
  cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 64; }
http {
  access_log $work/nginx-access.log;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
$body
}
NGINX
  if [ "$(id -u)" = 0 ]; then user='daemon off; user root;'; else user='daemon off;'; fi
  "$nginx_bin" -t -q -c "$work/nginx.conf" -p "$work" -g "$user" 2>"$work/nginx-test.log" ||
    { cat "$work/nginx-test.log" >&2; return 1; }
  "$nginx_bin" -c "$work/nginx.conf" -p "$work" -g "$user" &
  nginx_pid=$!
}
