#!/usr/bin/env bash
# make-upgrade-fixture.sh ATTACH_BINARY: writes Tests/Fixtures/upgrade/store-RELEASE, a small store
# made by this release, for the upgrade test (UpgradeTests) of every later release. Run once per
# release, by hand, and commit the result; a fixture already there is never rewritten.
#
# The store holds two notes, four attachments in a chosen order (a JPEG taken sideways, a PNG
# with alpha, a WebP, and the JPEG again in the second note, so one blob is shared), a fifth
# attachment that was deleted, a deleted note, and a thumbnail cache. The images are drawn by
# libvips here (a few KB each), not taken from the photo corpus. expected.json records, from
# the store itself, every note and attachment the test must find again.
set -euo pipefail
binary=$(realpath "${1:?usage: make-upgrade-fixture.sh ATTACH_BINARY}")
root=$(cd "$(dirname "$0")/.." && pwd)
release=$("$binary" --version | cut -d' ' -f1)
out="$root/Tests/Fixtures/upgrade/store-$release"
[ -e "$out" ] && { echo "make-upgrade-fixture.sh: $out exists; a released fixture is never rewritten" >&2; exit 1; }
command -v vips >/dev/null && command -v exiftool >/dev/null ||
  { echo "make-upgrade-fixture.sh: needs vips (libvips-tools) and exiftool (libimage-exiftool-perl)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Small, real images: a gradient JPEG marked "rotate 90°" (orientation 6), a PNG with alpha, a WebP.
vips xyz "$work/xy.v" 96 64
vips extract_band "$work/xy.v" "$work/x.v" 0
vips linear "$work/x.v" "$work/ramp.v" 2.5 10 --uchar
vips bandjoin "$work/ramp.v $work/ramp.v $work/ramp.v" "$work/rgb.v"
vips copy "$work/rgb.v" "$work/IMG_0001.jpg[Q=80]"
exiftool -q -overwrite_original -Orientation=6 -n "$work/IMG_0001.jpg"
vips bandjoin "$work/rgb.v $work/ramp.v" "$work/rgba.v"
vips copy "$work/rgba.v" "$work/overlay.png"
vips flip "$work/rgb.v" "$work/flipped.v" horizontal
vips copy "$work/flipped.v" "$work/sketch.webp[Q=70]"
printf 'not kept\n' >"$work/deleted.txt"

store="$work/store"
attach() { "$binary" "$@" --store "$store"; }
attach init >/dev/null
first=$(attach note add "Garden" --body "Spring, before the rain" | tail -n 1)
second=$(attach note add "Shed" --body "" | tail -n 1)
gone=$(attach note add "Scratch" | tail -n 1)
attach import --note "$first" "$work/IMG_0001.jpg" "$work/overlay.png" "$work/deleted.txt" "$work/sketch.webp" >/dev/null
attach import --note "$second" "$work/IMG_0001.jpg" >/dev/null
attach import --note "$gone" "$work/overlay.png" >/dev/null
deleted=$(attach list --note "$first" --json | python3 -c 'import json, sys; print(next(a["id"] for a in json.load(sys.stdin) if a["filename"] == "deleted.txt"))')
attach rm "$deleted" >/dev/null
attach note rm "$gone" >/dev/null
attach thumbs --size 200 >/dev/null
attach verify >/dev/null

# What the test must find again, read back from the store itself.
python3 - "$binary" "$store" "$deleted" "$release" >"$work/expected.json" <<'PY'
import json, subprocess, sys
binary, store, deleted, release = sys.argv[1:5]
def attach(*args):
    return json.loads(subprocess.check_output([binary, *args, "--store", store, "--json"]))
notes = attach("note", "list")
print(json.dumps({
    "release": release,
    "notes": notes,
    "attachments": attach("list"),
    "deletedAttachment": deleted,
}, indent=2, sort_keys=True))
PY
mkdir -p "$(dirname "$out")"
# Only what a store keeps between runs: no tmp/ contents, no SQLite -wal or -shm (closed cleanly).
rm -rf "${store:?}/tmp"/*
[ ! -e "$store/catalog.sqlite-wal" ] || { echo "make-upgrade-fixture.sh: the catalog was not closed cleanly" >&2; exit 1; }
cp -a "$store" "$out"
cp "$work/expected.json" "$out.json"
du -sh "$out"
echo "make-upgrade-fixture.sh: wrote $out and $out.json"
