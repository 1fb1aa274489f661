#!/usr/bin/env bash
# Installs what the real-browser test needs, when it is missing: Debian's chromium and
# chromium-driver, and Python selenium (python3-selenium). Debian/Ubuntu only.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
/usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 || need+=(python3-selenium)
# shellcheck source=scripts/apt-lib.sh
. "$(dirname "$0")/apt-lib.sh"
[ ${#need[@]} -eq 0 ] || apt_install "for the browser test" "${need[@]}"
# python3-selenium installs into Debian's python3; a python3 earlier on PATH may not see it.
python3 -c 'import selenium' >/dev/null 2>&1 || /usr/bin/python3 -c 'import selenium' >/dev/null

# axe-core, the accessibility engine the browser test runs in each page, as a test fixture (never
# served): the axe.min.js that PyPI's axe-playwright-python wheel carries, at a pinned version,
# unpacked into .cache/axe. Only the wheel is fetched (--no-deps): nothing of playwright is used.
root=$(cd "$(dirname "$0")/.." && pwd)
axe_wheel=axe-playwright-python==0.1.8
axe=$root/.cache/axe/axe.min.js
if [ ! -s "$axe" ]; then
    # shellcheck source=Tests/e2e/python-venv.sh
    . "$root/Tests/e2e/python-venv.sh"
    ensure_venv "$root/.cache/axe-venv" pip pip
    rm -rf "$root/.cache/axe"
    mkdir -p "$root/.cache/axe"
    "$root/.cache/axe-venv/bin/pip" download -q --no-deps "$axe_wheel" -d "$root/.cache/axe"
    (cd "$root/.cache/axe" && /usr/bin/python3 -c 'import sys, zipfile, glob
wheel = glob.glob("axe_playwright_python-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("/axe.min.js"))
    open("axe.min.js.part", "wb").write(z.read(name))
' && mv axe.min.js.part axe.min.js && rm -f ./*.whl)
    head -c 40 "$axe" | grep -q "axe v" || { echo "no axe-core in $axe_wheel" >&2; exit 1; }
fi
