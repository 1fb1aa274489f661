#!/usr/bin/env bash
# build-corpus.sh OUTDIR
#
# Builds AttachmentStore's image corpus (real photos, format variants, hostile inputs) into
# OUTDIR. The pictures come from two Debian wallpaper packages, fetched with
# `apt-get download` and unpacked with `dpkg -x` (never installed); everything else is
# derived from them with libvips, jpegtran, heif-enc, cwebp and exiftool.
#
#   CORPUS_CACHE  where the .deb files and their unpacked trees are kept between builds
#                 (default: OUTDIR's sibling "<OUTDIR name>-debs")
#
# A finished OUTDIR (it has MANIFEST.tsv) is left as it is. The build happens in a hidden
# sibling folder that is renamed to OUTDIR only once everything is made and checked, so an
# interrupted build never looks finished. Progress goes to stderr. See README.md here.
set -euo pipefail

say() { printf '[corpus %4ss] %s\n' "$SECONDS" "$*" >&2; }
fail() { printf '[corpus] FAILED: %s\n' "$*" >&2; exit 1; }

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: ${0##*/} OUTDIR   (CORPUS_CACHE=DIR to choose where the downloaded packages are kept)" >&2
  exit 2
fi

here=$(cd -- "$(dirname -- "$0")" && pwd)
target=$(realpath -m -- "$1")
parent=$(dirname -- "$target")
base=$(basename -- "$target")
cache=$(realpath -m -- "${CORPUS_CACHE:-$parent/$base-debs}")
stage=$parent/.$base.building

# What this builder makes, numbered: a corpus another version of it made (CORPUS_VERSION
# differs or is missing) is rebuilt and replaced, so new files reach every checkout.
# 2: special/mpf-*.jpg. 3: video/. 4: document/. 5: live/, video/ten-hours.mp4. 6: live/ motion photos.
# 7: video/claims-*.mov.
corpus_version=7
built() { [ -f "$target/MANIFEST.tsv" ] && [ "$(cat -- "$target/CORPUS_VERSION" 2>/dev/null)" = "$corpus_version" ]; }
if built; then
  say "already built: $target (delete it to rebuild)"
  exit 0
fi

mkdir -p -- "$parent" "$cache"
apt_log=$cache/apt.log

# One build per cache at a time; a second caller waits, then finds the corpus finished.
exec 9>"$cache/.lock"
if ! flock -n 9; then
  say "another build holds $cache/.lock; waiting for it"
  flock 9
  if built; then
    say "built meanwhile: $target"
    exit 0
  fi
fi

# An OUTDIR that is not a finished corpus of this version (left by an interrupted in-place
# build, or made by an older builder) is replaced at the end, but only when it holds nothing
# but what a corpus holds; anything else stops the build.
replaceable_target() {
  local entry
  [ -e "$target" ] || return 0
  [ -d "$target" ] || fail "$target exists and is not a folder"
  for entry in "$target"/* "$target"/.[!.]*; do
    [ -e "$entry" ] || continue
    case ${entry##*/} in
      good | special | fifty | bad | video | document | live | licenses | MANIFEST.tsv | MANIFEST.tsv.part | CORPUS_VERSION | .debs) ;;
      *) fail "$target exists, is not a corpus of version $corpus_version and holds ${entry##*/}; move it away and run again" ;;
    esac
  done
}
replaceable_target

# ---------------------------------------------------------------------------------------
# Tools

# apt_run ARGS...: apt-get, quiet, its output appended to $apt_log.
apt_run() {
  DEBIAN_FRONTEND=noninteractive apt-get -q "$@" >>"$apt_log" 2>&1
}

ensure_tools() {
  local pair cmd pkg missing=()
  for pair in vips:libvips-tools vipsheader:libvips-tools jpegtran:libjpeg-turbo-progs \
              heif-enc:libheif-examples exiftool:libimage-exiftool-perl cwebp:webp ffmpeg:ffmpeg pdfinfo:poppler-utils; do
    cmd=${pair%%:*} pkg=${pair#*:}
    if ! command -v "$cmd" >/dev/null 2>&1 && [[ " ${missing[*]} " != *" $pkg "* ]]; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    fail "missing tools; as root run: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
  fi
  say "installing ${missing[*]} (log: $apt_log)"
  if ! apt_run install -y --no-install-recommends "${missing[@]}"; then
    say "install failed with the current package lists; running apt-get update and retrying"
    apt_run update && apt_run install -y --no-install-recommends "${missing[@]}" ||
      { tail -n 20 "$apt_log" >&2; fail "apt-get install ${missing[*]} failed"; }
  fi
  for cmd in vips vipsheader jpegtran heif-enc exiftool cwebp ffmpeg pdfinfo; do
    command -v "$cmd" >/dev/null 2>&1 || fail "$cmd is still missing after the install"
  done
}

# ---------------------------------------------------------------------------------------
# Wallpaper packages: downloaded once into $cache, unpacked once into $cache/unpacked/PKG.

newest_deb() { # newest_deb PKG: path of the newest cached .deb of PKG, or nothing
  find "$cache" -maxdepth 1 -type f -name "${1}_*.deb" | sort -V | tail -n 1
}

unpack_package() { # unpack_package PKG
  local pkg=$1 tree=$cache/unpacked/$1 deb inbox
  if [ -d "$tree" ]; then
    say "$pkg: reusing $tree"
    return 0
  fi
  deb=$(newest_deb "$pkg")
  if [ -n "$deb" ]; then
    say "$pkg: reusing $deb"
  else
    say "$pkg: apt-get download into $cache"
    inbox=$cache/.incoming
    rm -rf -- "$inbox" && mkdir -p -- "$inbox"
    if ! (cd "$inbox" && apt_run download "$pkg"); then
      say "$pkg: not found with the current package lists; running apt-get update and retrying"
      apt_run update && (cd "$inbox" && apt_run download "$pkg") ||
        { tail -n 20 "$apt_log" >&2; fail "apt-get download $pkg failed"; }
    fi
    mv -- "$inbox"/"${pkg}"_*.deb "$cache"/
    rm -rf -- "$inbox"
    deb=$(newest_deb "$pkg")
    [ -n "$deb" ] || fail "$pkg: apt-get download left no .deb in $cache"
  fi
  rm -rf -- "$tree.part" && mkdir -p -- "$cache/unpacked"
  dpkg -x "$deb" "$tree.part" || fail "dpkg -x $deb failed"
  mv -T -- "$tree.part" "$tree"
  say "$pkg: unpacked into $tree"
}

# ---------------------------------------------------------------------------------------
# The build, into $stage

ensure_tools
unpack_package mate-backgrounds
unpack_package gnome-backgrounds

mate=$cache/unpacked/mate-backgrounds/usr/share/backgrounds/mate
gnome=$cache/unpacked/gnome-backgrounds/usr/share/backgrounds/gnome
big=$mate/abstract/Elephants_5640x3172.jpg
for f in "$mate/nature/Wood.jpg" "$big" "$gnome/wood-d.webp"; do
  [ -f "$f" ] || fail "the unpacked packages have an unexpected layout: no $f"
done

rm -rf -- "$stage"
trap 'rm -rf -- "$stage"' EXIT
mkdir -p -- "$stage"/{good,special,fifty,bad,video,document,live,licenses,.work}
work=$stage/.work
cd -- "$stage"

say "licenses: the packages' copyright files"
for pkg in mate-backgrounds gnome-backgrounds; do
  cp -- "$cache/unpacked/$pkg/usr/share/doc/$pkg/copyright" "licenses/$pkg.copyright"
done

say "good/: pictures exactly as the packages ship them"
cp -- "$mate"/nature/*.jpg good/
cp -- "$mate/abstract/Elephants.jpg" "$mate/abstract/Elephants_3840x2160.jpg" good/
cp -- "$mate"/abstract/*.png good/
cp -- "$gnome/wood-d.webp" "$gnome/truchet-l.webp" "$gnome/vnc-l.webp" good/

say "special/: the 16 MB original, JPEG codings, orientation"
cp -- "$big" special/large-16mb.jpg
# The same pixels twice, re-coded without loss: once baseline (Huffman-optimised), once progressive.
jpegtran -copy all -optimize -outfile special/baseline.jpg "$mate/nature/Wood.jpg"
jpegtran -copy all -progressive -outfile special/progressive.jpg "$mate/nature/Wood.jpg"
# Stored landscape, to be shown portrait.
cp -- "$mate/nature/Storm.jpg" special/orientation-6.jpg
exiftool -q -n -overwrite_original -Orientation=6 special/orientation-6.jpg
# A phone-sized photo: the centre 4032x3024 (12 MP) of the big picture, about 3.7 MB.
big_w=$(vipsheader -f width "$big")
big_h=$(vipsheader -f height "$big")
vips crop "$big" "special/seed-3.7mb.jpg[Q=87,optimize_coding]" \
  $(( (big_w - 4032) / 2 )) $(( (big_h - 3024) / 2 )) 4032 3024
# As phones store it: the 12 MP photo with a 1920x1440 preview inside, listed in a
# Multi-Picture Format index (make-mpf.py). The marked copy's preview has its colours inverted
# (so a test sees which image a thumbnail came from); the rotated copy's photo has Orientation
# 6 and its preview none, as cameras write them.
say "special/: photos with a Multi-Picture Format preview"
vips thumbnail special/seed-3.7mb.jpg "$work/preview.jpg[Q=85]" 1920
vips invert "$work/preview.jpg" "$work/preview-inverted.jpg[Q=85]"
python3 "$here/make-mpf.py" special/seed-3.7mb.jpg "$work/preview.jpg" special/mpf-preview.jpg
python3 "$here/make-mpf.py" special/seed-3.7mb.jpg "$work/preview-inverted.jpg" special/mpf-marked.jpg
cp -- special/seed-3.7mb.jpg "$work/seed-6.jpg"
exiftool -q -n -overwrite_original -Orientation=6 "$work/seed-6.jpg"
python3 "$here/make-mpf.py" "$work/seed-6.jpg" "$work/preview.jpg" special/mpf-rotated.jpg

say "special/: other formats made from real photos"
heif-enc --quality 60 --output special/photo.heic "$mate/nature/LadyBird.jpg" >/dev/null
vips copy "$mate/nature/Garden.jpg" special/photo.png
vips copy "$mate/nature/RainDrops.jpg" "special/photo.tiff[compression=lzw,predictor=horizontal]"
# 16 bits per channel: libvips scales 0..255 to 0..65535 on the way to rgb16. Half size keeps it small.
vips resize "$mate/nature/YellowFlower.jpg" "$work/flower-half.v" 0.5
vips colourspace "$work/flower-half.v" special/photo-16bit.png rgb16
# CMYK through libvips' built-in CMYK profile (the JPEG gets 4 components and that profile).
vips icc_export "$mate/nature/TwoWings.jpg" "$work/twowings-cmyk.v" --output-profile cmyk
vips jpegsave "$work/twowings-cmyk.v" special/cmyk.jpg --Q 90
cwebp -quiet -q 80 "$mate/nature/Blinds.jpg" -o special/photo.webp
# A real alpha channel: the photo's own lightness, so transparency varies across the picture.
vips copy "$mate/nature/FreshFlower.jpg" "$work/flower.v"
vips colourspace "$work/flower.v" "$work/flower-grey.v" b-w
(cd "$work" && vips bandjoin "flower.v flower-grey.v" flower-rgba.v) # the image list is split on spaces
vips copy "$work/flower-rgba.v" special/alpha.png
# AVIF needs an AV1 encoder in libheif; Debian 12's is built with libaom, but say so if not.
if heif-enc --avif --quality 60 --output special/photo.avif "$mate/nature/GreenMeadow.jpg" >"$work/avif.log" 2>&1; then
  avif=yes
else
  avif=no
  rm -f special/photo.avif
  say "special/photo.avif skipped: heif-enc cannot write AVIF here ($(head -n 1 "$work/avif.log"))"
fi

say "fifty/: 50 distinct 4032x3024 JPEGs (Q 92) cropped from 5 large real pictures"
n=0
for src in "$big" "$gnome/adwaita-l.webp" "$gnome/licorice-l.webp" "$gnome/pixels-l.webp" "$gnome/grid-l.webp"; do
  w=$(vipsheader -f width "$src")
  h=$(vipsheader -f height "$src")
  [ "$w" -ge 4032 ] && [ "$h" -ge 3024 ] || fail "$src is ${w}x${h}, smaller than 4032x3024"
  # Left edge moves steadily to the right; the top edge visits 10 heights in a shuffled order.
  for step in 0 1 2 3 4 5 6 7 8 9; do
    left=$(( (w - 4032) * step / 9 ))
    top=$(( (h - 3024) * (step * 7 % 10) / 9 ))
    vips crop "$src" "$(printf 'fifty/photo-%02d.jpg' "$n")[Q=92]" "$left" "$top" 4032 3024
    n=$(( n + 1 ))
  done
  say "fifty/: $n of 50"
done

say "bad/: files a store must take or refuse without decoding them wrongly"
: >bad/empty.jpg
dune=$mate/nature/Dune.jpg
head -c "$(( $(stat -c %s "$dune") / 2 ))" "$dune" >bad/truncated.jpg
# Noise that is the same on every build: 256 KiB from inside the xz stream of mate's .deb
# (incompressible, no file signature). Fresh random bytes if that .deb is gone from the cache.
mate_deb=$(newest_deb mate-backgrounds)
if [ -n "$mate_deb" ] && [ "$(stat -c %s -- "$mate_deb")" -gt $(( 8 << 20 )) ]; then
  dd if="$mate_deb" of=bad/random.jpg bs=64K skip=64 count=4 status=none
else
  head -c 262144 /dev/urandom >bad/random.jpg
fi
for i in $(seq 1 120); do
  printf 'line %03d: plain text with a .png name, not an image\n' "$i"
done >bad/text.png
cat >bad/script.svg <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">
  <script type="text/javascript">fetch("/api/notes").then(r => r.text()).then(t => alert(t));</script>
  <rect x="0" y="0" width="120" height="80" fill="#2a6"/>
</svg>
EOF
# 30000x30000 one-band pixels, all zero: 900 megapixels declared, well under 1 MB on disk.
vips black "bad/bomb.png[compression=9]" 30000 30000

say "video/: clips panning across a real photo, as phones record them"
# ffmpeg run quietly, never waiting for input.
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
# A pan across the large wallpaper (scaled once to 2560 wide) at 30 frames a second, with a
# tone as its sound.
vips thumbnail "$big" "$work/pan.png" 2560
pan() { # pan SECONDS: the input arguments of a pan that long
  printf '%s\n' -loop 1 -framerate 30 -t "$1" -i "$work/pan.png" -f lavfi -t "$1" -i sine=frequency=440:sample_rate=48000
}
mapfile -t pan3 < <(pan 3)
ff "${pan3[@]}" -vf "crop=1280:720:x='t*300':y=200,format=yuv420p" \
  -c:v libx264 -preset veryfast -profile:v high -crf 23 -c:a aac -b:a 96k -shortest \
  -movflags +faststart -metadata creation_time=2024-05-01T10:20:30Z video/clip-h264.mp4
# HEVC in QuickTime, as an iPhone records it: tagged hvc1, turned upright by the container
# (the rotate tag of 270 makes the display matrix turn it clockwise: a portrait clip), with
# Apple's creation date and its offset.
mapfile -t pan2 < <(pan 2.5)
ff "${pan2[@]}" -vf "crop=1280:720:x='t*300':y=600,format=yuv420p" \
  -c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1 -c:a aac -b:a 96k -shortest \
  -metadata com.apple.quicktime.creationdate=2024-05-01T12:20:30+0200 -movflags use_metadata_tags "$work/hevc.mov"
ff -i "$work/hevc.mov" -map 0 -c copy -metadata:s:v:0 rotate=270 \
  -metadata com.apple.quicktime.creationdate=2024-05-01T12:20:30+0200 -movflags use_metadata_tags video/clip-hevc.mov
# Cut in the middle of its frames (its index is at the front and whole), and cut inside its index.
head -c "$(( $(stat -c %s video/clip-h264.mp4) * 2 / 5 ))" video/clip-h264.mp4 >video/truncated.mp4
head -c 2000 video/clip-h264.mp4 >video/index-cut.mp4
# Motion-JPEG clips of 16x16 frames whose headers claim far larger ones: 16,000 a side (256
# megapixels, which ffmpeg accepts and the store's limit refuses) and 65,535, the most these
# fields can state (ffmpeg itself refuses that size).
ff -f lavfi -i color=c=red:s=16x16:r=2 -t 2 -c:v mjpeg -q:v 5 "$work/small-mjpeg.mov"
python3 "$here/make-size-claim.py" "$work/small-mjpeg.mov" video/claims-16000.mov 16000
python3 "$here/make-size-claim.py" "$work/small-mjpeg.mov" video/claims-65535.mov 65535
# Ten hours of a small grey frame, one a second: what a camera left running records, in 1 MB.
ff -f lavfi -i color=c=gray:s=64x36:r=1 -t 36000 -c:v libx264 -preset ultrafast -g 600 -pix_fmt yuv420p video/ten-hours.mp4

say "live/: Live Photos, a still and a clip that share Apple's content identifier"
# IMG_0001: a HEIC still (the identifier in its EXIF maker note, carried over by heif-enc) and
# an HEVC clip; IMG_0002: the same with a JPEG still ("Most Compatible" on an iPhone).
vips thumbnail "$mate/nature/Dune.jpg" "$work/live.jpg[Q=85]" 1440
for pair in 0001:heic:1F6C3E2A-5B7D-4C11-9E0F-2A3B4C5D6E7F 0002:jpg:7A0B1C2D-3E4F-4A5B-8C6D-7E8F9A0B1C2D; do
  IFS=: read -r number kind identifier <<<"$pair"
  if [ "$kind" = heic ]; then
    python3 "$here/make-live-still.py" "$work/live.jpg" "$identifier" "$work/live-$number.jpg"
    heif-enc --quality 60 --output "live/IMG_$number.HEIC" "$work/live-$number.jpg" >/dev/null
  else
    python3 "$here/make-live-still.py" "$work/live.jpg" "$identifier" "live/IMG_$number.JPG"
  fi
  ff -i "$work/hevc.mov" -map 0 -c copy -metadata "com.apple.quicktime.content.identifier=$identifier" \
    -metadata com.apple.quicktime.creationdate=2024-05-01T12:20:30+0200 -movflags use_metadata_tags "live/IMG_$number.MOV"
done
# Android motion photos: the JPEG with its MP4 appended and named in its XMP, in Google's
# current format and in the older MicroVideo one.
python3 "$here/make-motion-photo.py" "$work/live.jpg" video/clip-h264.mp4 live/PXL_20240501_102030.MP.jpg
python3 "$here/make-motion-photo.py" "$work/live.jpg" video/clip-h264.mp4 live/MVIMG_20240501_102030.jpg --micro-video

say "document/: PDFs written by scripts/corpus/make-pdf.py, one with a real photo on its first page"
vips thumbnail "$mate/nature/Dune.jpg" "$work/page-photo.jpg[Q=85]" 800
python3 "$here/make-pdf.py" document/three-pages.pdf 3 "$work/page-photo.jpg"
python3 "$here/make-pdf.py" document/10000-pages.pdf 10000
head -c "$(( $(stat -c %s document/three-pages.pdf) / 2 ))" document/three-pages.pdf >document/truncated.pdf

rm -rf -- "$work"

say "MANIFEST.tsv: hashing and probing every file"
# describe FILE: prints "WIDTHxHEIGHT<TAB>loader", or "-<TAB>none" when libvips cannot read it.
describe() {
  local header
  if header=$(vipsheader -a "$1" 2>/dev/null); then
    awk -F': ' '$1 == "width" { w = $2 } $1 == "height" { h = $2 } $1 == "vips-loader" { l = $2 }
      END { printf "%s\t%s\n", (w != "" && h != "") ? w "x" h : "-", (l != "") ? l : "none" }' <<<"$header"
  else
    printf -- '-\tnone\n'
  fi
}
find good special fifty bad video document licenses -type f | LC_ALL=C sort | while IFS= read -r path; do
  printf '%s\t%s\t%s\t%s\n' "$(sha256sum -- "$path" | cut -d' ' -f1)" "$(stat -c %s -- "$path")" \
    "$(describe "$path")" "$path"
done >MANIFEST.tsv.part
mv -- MANIFEST.tsv.part MANIFEST.tsv
echo "$corpus_version" >CORPUS_VERSION

say "checking the corpus"
problems=()
while IFS= read -r path; do
  [ -n "$path" ] || continue
  if [ ! -e "$path" ]; then
    problems+=("missing: $path")
  elif [ "$path" != bad/empty.jpg ] && [ ! -s "$path" ]; then
    problems+=("empty: $path")
  fi
done <<'EOF'
good/Aqua.jpg
good/Blinds.jpg
good/Dune.jpg
good/FreshFlower.jpg
good/Garden.jpg
good/GreenMeadow.jpg
good/LadyBird.jpg
good/RainDrops.jpg
good/Storm.jpg
good/TwoWings.jpg
good/Wood.jpg
good/YellowFlower.jpg
good/Elephants.jpg
good/Elephants_3840x2160.jpg
good/Arc-Colors-Transparent-Wallpaper.png
good/Flow.png
good/Gulp.png
good/Silk.png
good/Spring.png
good/Waves.png
good/wood-d.webp
good/truchet-l.webp
good/vnc-l.webp
special/large-16mb.jpg
special/baseline.jpg
special/progressive.jpg
special/orientation-6.jpg
special/photo.heic
special/photo.png
special/seed-3.7mb.jpg
special/photo.tiff
special/photo-16bit.png
special/cmyk.jpg
special/photo.webp
special/alpha.png
special/mpf-preview.jpg
special/mpf-marked.jpg
special/mpf-rotated.jpg
bad/empty.jpg
bad/truncated.jpg
bad/random.jpg
bad/text.png
bad/script.svg
bad/bomb.png
video/clip-h264.mp4
video/clip-hevc.mov
video/truncated.mp4
video/index-cut.mp4
video/ten-hours.mp4
video/claims-16000.mov
video/claims-65535.mov
live/IMG_0001.HEIC
live/IMG_0001.MOV
live/IMG_0002.JPG
live/IMG_0002.MOV
live/PXL_20240501_102030.MP.jpg
live/MVIMG_20240501_102030.jpg
document/three-pages.pdf
document/10000-pages.pdf
document/truncated.pdf
licenses/mate-backgrounds.copyright
licenses/gnome-backgrounds.copyright
MANIFEST.tsv
CORPUS_VERSION
EOF
for i in $(seq 0 49); do
  path=$(printf 'fifty/photo-%02d.jpg' "$i")
  [ -s "$path" ] || problems+=("missing or empty: $path")
done
[ "$avif" = no ] || [ -s special/photo.avif ] || problems+=("missing: special/photo.avif")

# header_field FILE NAME: one field of `vipsheader -a` (whose -f prints enums by their C names).
header_field() { vipsheader -a "$1" | awk -F': ' -v n="$2" '$1 == n { print $2; exit }'; }
# manifest_field PATH COLUMN: one column of PATH's manifest line.
manifest_field() { awk -F'\t' -v p="$1" -v c="$2" '$5 == p { print $c }' MANIFEST.tsv; }
[ "$avif" = no ] || [ "$(manifest_field special/photo.avif 4)" = heifload ] || problems+=("libvips cannot read special/photo.avif")
[ "$(find fifty -type f | wc -l)" -eq 50 ] || problems+=("fifty/ does not hold exactly 50 files")
[ "$(awk -F'\t' '$5 ~ /^fifty\// { print $1 }' MANIFEST.tsv | sort -u | wc -l)" -eq 50 ] ||
  problems+=("fifty/ photos are not all distinct")
[ "$(awk -F'\t' '$5 ~ /^fifty\// && $3 != "4032x3024"' MANIFEST.tsv | wc -l)" -eq 0 ] ||
  problems+=("a fifty/ photo is not 4032x3024")
[ "$(manifest_field special/photo.heic 4)" = heifload ] || problems+=("libvips cannot read special/photo.heic")
[ "$(manifest_field special/seed-3.7mb.jpg 3)" = 4032x3024 ] || problems+=("special/seed-3.7mb.jpg is not 4032x3024")
seed_bytes=$(manifest_field special/seed-3.7mb.jpg 2)
[ "${seed_bytes:-0}" -ge 3400000 ] && [ "${seed_bytes:-0}" -le 4000000 ] ||
  problems+=("special/seed-3.7mb.jpg is ${seed_bytes:-?} bytes, not about 3.7 MB")
[ "$(manifest_field bad/bomb.png 3)" = 30000x30000 ] || problems+=("bad/bomb.png does not declare 30000x30000")
[ "$(exiftool -s3 -n -Orientation special/orientation-6.jpg)" = 6 ] || problems+=("special/orientation-6.jpg has no Orientation 6")
for mpf in special/mpf-preview.jpg special/mpf-marked.jpg special/mpf-rotated.jpg; do
  exiftool -s3 -a -MPImageType "$mpf" | grep -q 'Large Thumbnail' || problems+=("$mpf lists no large thumbnail in its MPF index")
done
for number in 0001 0002; do
  still=$(ls live/IMG_"$number".* | grep -v MOV)
  identifier=$(exiftool -s3 -MediaGroupUUID "$still")
  [ -n "$identifier" ] || problems+=("$still carries no content identifier in an Apple maker note")
  ffprobe -v error -show_entries format_tags=com.apple.quicktime.content.identifier -of default=nw=1:nk=1 "live/IMG_$number.MOV" |
    grep -qx -- "$identifier" || problems+=("live/IMG_$number.MOV does not carry its still's content identifier")
done
exiftool -a -s3 -DirectoryItemSemantic live/PXL_20240501_102030.MP.jpg | grep -qx MotionPhoto ||
  problems+=("live/PXL_20240501_102030.MP.jpg names no MotionPhoto item in its XMP")
[ "$(exiftool -s3 -MicroVideo live/MVIMG_20240501_102030.jpg)" = 1 ] || problems+=("live/MVIMG_20240501_102030.jpg is no MicroVideo")
[ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 video/claims-16000.mov)" = 16000,16000 ] ||
  problems+=("video/claims-16000.mov does not claim 16000x16000")
duration=$(ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 video/ten-hours.mp4)
[ "${duration%%.*}" -ge 35990 ] || problems+=("video/ten-hours.mp4 lasts ${duration}s, not ten hours")
[ "$(header_field special/cmyk.jpg interpretation)" = cmyk ] || problems+=("special/cmyk.jpg is not CMYK")
[ "$(header_field special/photo-16bit.png format)" = ushort ] || problems+=("special/photo-16bit.png is not 16-bit")
[ "$(header_field special/alpha.png bands)" = 4 ] || problems+=("special/alpha.png has no alpha channel")

if [ ${#problems[@]} -gt 0 ]; then
  printf '[corpus] FAILED check: %s\n' "${problems[@]}" >&2
  fail "the build is incomplete; nothing was put at $target"
fi

# ---------------------------------------------------------------------------------------
# Into place, with one rename.
cd -- "$parent"
if [ -e "$target" ]; then
  replaceable_target
  say "replacing $target (unfinished, or made by another version of this builder)"
  rm -rf -- "$target"
fi
mv -T -- "$stage" "$target"
trap - EXIT

say "done: $target, $(wc -l <"$target/MANIFEST.tsv") files, $(du -sh -- "$target" | cut -f1); AVIF: $avif"
