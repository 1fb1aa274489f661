#!/usr/bin/env bash
# Measures videos (issue 35): the poster thumbnails of `attach thumbs` against ffmpeg's own
# `ffmpeg -ss 1 -i CLIP -frames:v 1` of the same clips at the same size (two processes at once on
# both sides), and the time to the first byte of a video's playable copy, made on the first
# request by `attach serve`, against ffmpeg alone making the same copy into a file. Runs
# alternate between the two sides; medians. Writes the video section of BENCHMARKS.md (between
# <!-- video:begin --> and <!-- video:end -->). Called by `make bench`.
#
# Environment: those of scripts/bench-lib.sh. The clips are the corpus's video/clip-h264.mp4
# (H.264/AAC: its copy is the streams copied) and video/clip-hevc.mov (an iPhone-style HEVC clip:
# transcoded), each made into distinct files by changing a tag (stream copies, so the frames are
# the corpus's own): 8 of each, 2 in the smoke pass.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"
size=200
procs=2
per_kind=8
if [ "$smoke" = 1 ]; then runs=1; per_kind=2; fi
case $runs in ''|*[!0-9]*|0) die "BENCH_RUNS must be a positive integer, got '$runs'" ;; esac

[ -x "$bin" ] || die "attach binary not found at $bin (run \`swift build -c release --product attach\`, or set ATTACH_BIN)"
for f in video/clip-h264.mp4 video/clip-hevc.mov; do
  [ -f "$corpus/$f" ] || die "corpus file $corpus/$f is missing (run \`make corpus\`)"
done
for c in ffmpeg ffprobe curl python3; do
  command -v "$c" > /dev/null || die "$c is missing (make deps installs ffmpeg; curl and python3 come with the test tools)"
done
ffmpeg_version=$(ffmpeg -version | head -n 1 | cut -d' ' -f1-3)
bench_check_output video
bench_scratch

say "$per_kind distinct clips of each kind, by stream copy"
mkdir -p "$scratch/clips"
clips=()
for kind in h264:mp4 hevc:mov; do
  for i in $(seq 1 "$per_kind"); do
    out_clip="$scratch/clips/${kind%%:*}-$i.${kind##*:}"
    ffmpeg -nostdin -loglevel error -y -i "$corpus/video/clip-${kind%%:*}.${kind##*:}" -map 0 -c copy \
      -metadata comment="bench clip $i" "$out_clip"
    clips+=("$out_clip")
  done
done

store=$scratch/store
attach_quiet init --store "$store"
note=$("$bin" note add "Clips" --store "$store")
attach_quiet import "${clips[@]}" --note "$note" --store "$store" --no-thumbnails

# --- 1. posters ------------------------------------------------------------------------------
reference_posters() { # ffmpeg's frame a second in, scaled and written as JPEG, two at a time
  rm -rf "$scratch/frames" && mkdir -p "$scratch/frames"
  printf '%s\n' "${clips[@]}" | xargs -P "$procs" -I{} sh -c \
    'ffmpeg -nostdin -loglevel error -y -ss 1 -i "$1" -frames:v 1 -vf "scale='"$size:$size"':force_original_aspect_ratio=decrease" "$2/$(basename "$1").jpg"' \
    _ {} "$scratch/frames"
}
ours_posters() {
  "$bin" cache clear --store "$store" > /dev/null
  "$bin" thumbs --store "$store" --size "$size" > "$scratch/thumbs.log" 2>&1 || { cat "$scratch/thumbs.log" >&2; die "attach thumbs failed"; }
}
warm "${clips[@]}"
ref_times=(); our_times=()
for run in $(seq 1 "$runs"); do
  say "posters, run $run of $runs"
  t0=$(now); reference_posters; t1=$(now); ref_times+=("$(elapsed "$t0" "$t1")")
  t0=$(now); ours_posters; t1=$(now); our_times+=("$(elapsed "$t0" "$t1")")
done
made=$(grep -o '[0-9]* made' "$scratch/thumbs.log" | head -n 1 | cut -d' ' -f1)
[ "${made:-0}" = "${#clips[@]}" ] || die "attach thumbs made ${made:-0} posters of ${#clips[@]}: $(cat "$scratch/thumbs.log")"
ref_med=$(median "${ref_times[@]}")
our_med=$(median "${our_times[@]}")

# --- 2. the first byte of a playable copy ----------------------------------------------------
bench_serve "$store" video
ids=$("$bin" list --json --store "$store" | python3 -c 'import json, sys
rows = json.load(sys.stdin)
print(next(r["id"] for r in rows if r["mediaType"] == "video/mp4"), next(r["id"] for r in rows if r["mediaType"] == "video/quicktime"))')
read -r mp4_id mov_id <<< "$ids"
first_byte() { # first_byte ID: seconds to the first byte of the copy, made now
  "$bin" cache clear --store "$store" > /dev/null
  curl -s -o "$scratch/copy.mp4" -w '%{http_code} %{time_starttransfer}\n' "$served_url/api/attachments/$1/video" > "$scratch/ttfb"
  read -r code seconds < "$scratch/ttfb"
  [ "$code" = 200 ] || die "GET /api/attachments/$1/video answered $code: $(head -c 300 "$scratch/copy.mp4")"
  echo "$seconds"
}
reference_copy() { # reference_copy CLIP copy|transcode: ffmpeg alone, the same settings, into a file
  local coding
  if [ "$2" = copy ]; then coding=(-c copy); else
    coding=(-vf "scale=w='min(1280,iw)':h='min(1280,ih)':force_original_aspect_ratio=decrease:force_divisible_by=2"
            -c:v libx264 -preset veryfast -crf 23 -profile:v high -pix_fmt yuv420p -c:a aac -b:a 128k -ac 2)
  fi
  ffmpeg -nostdin -loglevel error -y -threads 2 -i "$1" -map 0:v:0 -map '0:a:0?' -sn -dn -map_metadata -1 "${coding[@]}" \
    -movflags +faststart -f mp4 "$scratch/reference.mp4"
}
mov_clip=$(printf '%s\n' "${clips[@]}" | grep 'hevc-1\.mov$')
mp4_clip=$(printf '%s\n' "${clips[@]}" | grep 'h264-1\.mp4$')
mov_ref=(); mov_ours=(); mp4_ref=(); mp4_ours=()
for run in $(seq 1 "$runs"); do
  say "first bytes of playable copies, run $run of $runs"
  t0=$(now); reference_copy "$mov_clip" transcode; t1=$(now); mov_ref+=("$(elapsed "$t0" "$t1")")
  mov_ours+=("$(first_byte "$mov_id")")
  t0=$(now); reference_copy "$mp4_clip" copy; t1=$(now); mp4_ref+=("$(elapsed "$t0" "$t1")")
  mp4_ours+=("$(first_byte "$mp4_id")")
done

section=$(
  echo '<!-- video:begin -->'
  echo '## Videos: posters and playable copies'
  echo
  bench_header
  echo "- Clips: $per_kind copies each of the corpus's \`video/clip-h264.mp4\` (1280x720 H.264/AAC, 3 s) and \`video/clip-hevc.mov\` (1280x720 HEVC turned to portrait, 2.5 s), made distinct by a tag; $ffmpeg_version"
  echo "- $runs alternating runs per side; medians"
  echo
  echo "### Poster thumbnails, $size px, ${#clips[@]} clips"
  echo
  echo "| | runs | min | median | max | vs ffmpeg |"
  echo "|---|---|---|---|---|---|"
  row_time "\`ffmpeg -ss 1 -frames:v 1\` (scaled, JPEG; $procs at once)" "" "${ref_times[@]}"
  row_time "\`attach thumbs\` (ffmpeg's frame, finished by libvips)" "$ref_med" "${our_times[@]}"
  echo
  echo "A poster costs one ffmpeg, as the reference does: the header ffprobe read at import (size,"
  echo "turn, playing time) is kept in the catalog, so its size is checked and its time chosen"
  echo "without running ffprobe again. \`attach thumbs\` also starts once and opens the store."
  echo
  echo "### First byte of a playable copy (made on the first request)"
  echo
  echo "| | runs | min | median | max | vs ffmpeg alone |"
  echo "|---|---|---|---|---|---|"
  row_time "HEVC clip: ffmpeg transcoding it into a file" "" "${mov_ref[@]}"
  row_time "HEVC clip: \`GET …/video\`, first byte" "$(median "${mov_ref[@]}")" "${mov_ours[@]}"
  row_time "H.264 clip: ffmpeg copying its streams into a file" "" "${mp4_ref[@]}"
  row_time "H.264 clip: \`GET …/video\`, first byte" "$(median "${mp4_ref[@]}")" "${mp4_ours[@]}"
  echo
  echo "The copy's index is at its front, so its first byte can only go once it is whole: the"
  echo "first request waits for the whole copy; later ones are a file read. Before ffmpeg, the"
  echo "server runs ffprobe once to choose between copying and transcoding (about 0.07 s on this"
  echo "machine: most of the H.264 clip's difference)."
  echo '<!-- video:end -->'
)
bench_write_section video "$section"
printf '%s\n' "$section"
