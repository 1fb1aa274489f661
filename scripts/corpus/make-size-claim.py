#!/usr/bin/env python3
"""make-size-claim.py IN OUT SIDE

Writes OUT: the Motion-JPEG QuickTime clip IN (small frames) with every place that states its
frame size rewritten to SIDE x SIDE: the track header (16.16 fixed point), the sample entry and
each frame's JPEG SOF0 header. The pixels stay those of the small frames: a file that claims a
frame far larger than it holds, as a crafted upload would. SIDE is at most 65,535, the largest
these 16-bit fields can state. Used by the corpus builder (video/claims-*.mov); standard library
only.
"""
import struct
import sys


def main():
    source, out, side = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if not 1 <= side <= 65535:
        raise SystemExit("make-size-claim.py: SIDE must be 1 to 65535")
    data = bytearray(open(source, "rb").read())
    # The sample entry ('jpeg'): after its type, 6 reserved bytes, the data reference, version,
    # revision, vendor, temporal and spatial quality, then width and height.
    entry = data.find(b"jpeg")
    if entry < 0:
        raise SystemExit("make-size-claim.py: no Motion-JPEG sample entry")
    at = entry + 4 + 6 + 2 + 2 + 2 + 4 + 4 + 4
    data[at:at + 4] = struct.pack(">HH", side, side)
    # The track header (version 0): width and height after the matrix, 16.16 fixed point.
    track = data.find(b"tkhd")
    at = track + 4 + 4 + 4 + 4 + 4 + 4 + 4 + 8 + 2 + 2 + 2 + 2 + 36
    data[at:at + 8] = struct.pack(">II", side << 16, side << 16)
    # Each frame's SOF0: marker, length, precision, then height and width.
    frames = 0
    at = data.find(b"\xff\xc0")
    while at >= 0:
        data[at + 5:at + 9] = struct.pack(">HH", side, side)
        frames += 1
        at = data.find(b"\xff\xc0", at + 2)
    if frames == 0:
        raise SystemExit("make-size-claim.py: no JPEG frame header")
    open(out, "wb").write(data)


if __name__ == "__main__":
    main()
