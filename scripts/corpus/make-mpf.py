#!/usr/bin/env python3
"""make-mpf.py PRIMARY PREVIEW OUT [--type HEX]

Writes OUT: the JPEG PRIMARY with PREVIEW (a smaller JPEG of the same picture) appended and
listed in a Multi-Picture Format index (CIPA DC-007), the way phones and cameras store a
large preview inside a photo. The index is an APP2 segment ("MPF\\0" and a little-endian
TIFF block) placed after the primary's APP0/APP1 segments, listing two images: the primary
(type 0x030000, offset 0) and the preview (type --type, default 0x010001, a large thumbnail),
whose offset counts from the segment's byte-order mark, as the standard says.

Used by the corpus builder (special/mpf-*.jpg) and the thumbnail benchmark (phone-like copies
of the fifty photos). Standard library only.
"""
import argparse
import struct


def insertion_point(jpeg):
    """The offset after SOI and the APP0/APP1 segments that follow it."""
    if jpeg[:2] != b"\xff\xd8":
        raise SystemExit("make-mpf.py: the primary is not a JPEG")
    offset = 2
    while jpeg[offset] == 0xFF and jpeg[offset + 1] in (0xE0, 0xE1):
        (length,) = struct.unpack(">H", jpeg[offset + 2:offset + 4])
        offset += 2 + length
    return offset


def mpf_segment(at, primary_length, preview_length, preview_type):
    """The APP2 segment for a primary whose final length (segment included) is primary_length,
    the segment placed at offset `at`, the preview appended right after the primary."""
    entries_at = 8 + 2 + 3 * 12 + 4          # TIFF header, tag count, 3 tags, next-IFD offset
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 3)
    tiff += struct.pack("<HHI4s", 0xB000, 7, 4, b"0100")             # MP format version
    tiff += struct.pack("<HHII", 0xB001, 4, 1, 2)                    # number of images
    tiff += struct.pack("<HHII", 0xB002, 7, 32, entries_at)          # the MP entries
    tiff += struct.pack("<I", 0)                                     # no next IFD
    base = at + 2 + 2 + 4                    # the TIFF header: after marker, length, "MPF\0"
    tiff += struct.pack("<IIIHH", 0x20030000, primary_length, 0, 0, 0)
    tiff += struct.pack("<IIIHH", preview_type, preview_length, primary_length - base, 0, 0)
    return b"\xff\xe2" + struct.pack(">H", 2 + 4 + len(tiff)) + b"MPF\x00" + tiff


SEGMENT_LENGTH = 2 + 2 + 4 + 8 + 2 + 3 * 12 + 4 + 2 * 16


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("primary")
    parser.add_argument("preview")
    parser.add_argument("out")
    parser.add_argument("--type", default="0x010001", help="the preview's MP type code (default 0x010001)")
    args = parser.parse_args()
    primary = open(args.primary, "rb").read()
    preview = open(args.preview, "rb").read()
    if preview[:2] != b"\xff\xd8":
        raise SystemExit("make-mpf.py: the preview is not a JPEG")
    at = insertion_point(primary)
    primary_length = len(primary) + SEGMENT_LENGTH
    segment = mpf_segment(at, primary_length, len(preview), int(args.type, 16))
    assert len(segment) == SEGMENT_LENGTH
    with open(args.out, "wb") as out:
        out.write(primary[:at] + segment + primary[at:] + preview)


if __name__ == "__main__":
    main()
