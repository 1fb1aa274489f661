#!/usr/bin/env bash
# Sourced by the end-to-end scripts: ensure_venv VENV PACKAGE MODULE makes a virtual environment
# at VENV with PACKAGE from PyPI unless MODULE already imports there. Debian ships venv's
# ensurepip separately (python3-venv); it is installed with apt-get when missing.
ensure_venv() {
    local venv=$1 package=$2 module=$3 root py
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $module" > /dev/null 2>&1; then return 0; fi
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    py=python3
    if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
        py=/usr/bin/python3
        if ! "$py" -c 'import ensurepip' > /dev/null 2>&1; then
            # shellcheck source=scripts/apt-lib.sh
            . "$root/scripts/apt-lib.sh"
            apt_install "to make the venv for $package" python3-venv
        fi
    fi
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/pip" install -q "$package"
}
