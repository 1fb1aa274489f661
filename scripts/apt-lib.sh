# Sourced by the scripts that install Debian packages; never run.
# apt_install WHY PACKAGE...: installs the packages with apt-get (as root, refreshing the lists
# once if the first attempt fails), or, as another user, prints the exact command and fails.
apt_install() {
  local why=$1; shift
  [ $# -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "missing $why: $*" >&2
    echo "install them with:  sudo apt-get install -y --no-install-recommends $*" >&2
    return 1
  fi
  echo "installing $* with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "$@" >/dev/null; }
}
