#!/usr/bin/env python3
"""make-live-still.py JPEG IDENTIFIER OUT

Writes OUT: the JPEG with an EXIF block as an iPhone writes the still of a Live Photo: IFD0
names the maker (Apple) and model, its EXIF IFD holds a DateTimeOriginal and Apple's maker
note, and the maker note's tag 0x0011 holds IDENTIFIER, the content identifier the clip of the
same Live Photo carries as `com.apple.quicktime.content.identifier`.

The maker note is laid out as Apple's: "Apple iOS\\0", a version (1), the byte order "MM",
then an IFD whose value offsets count from the maker note's first byte. Any EXIF block of the
input is dropped. `heif-enc` carries the block into a HEIC. Used by the corpus builder
(live/); standard library only.
"""
import argparse
import struct


def ifd(entries, at, data_at):
    """A big-endian IFD at offset `at` of its block: entries are (tag, type, count, bytes);
    values longer than four bytes are laid out from `data_at`. Returns (ifd bytes, data bytes)."""
    table = struct.pack(">H", len(entries))
    data = b""
    for tag, kind, count, value in entries:
        if len(value) <= 4:
            table += struct.pack(">HHI", tag, kind, count) + value.ljust(4, b"\x00")
        else:
            table += struct.pack(">HHII", tag, kind, count, data_at + len(data))
            data += value + (b"\x00" if len(value) % 2 else b"")
    table += struct.pack(">I", 0)
    assert at + len(table) <= data_at
    return table, data


def ascii_value(text):
    raw = text.encode("ascii") + b"\x00"
    return (2, len(raw), raw)


def maker_note(identifier):
    """Apple's maker note holding the content identifier."""
    header = b"Apple iOS\x00" + struct.pack(">H", 1) + b"MM"
    kind, count, raw = ascii_value(identifier)
    entries = [(0x0001, 9, 1, struct.pack(">i", 14)), (0x0011, kind, count, raw)]
    table_length = 2 + 12 * len(entries) + 4
    table, data = ifd(entries, len(header), len(header) + table_length)
    return header + table + data


def exif_block(identifier):
    """The APP1 body: `Exif\\0\\0` and a big-endian TIFF block."""
    note = maker_note(identifier)
    ifd0_at = 8
    ifd0_entries = 3
    ifd0_length = 2 + 12 * ifd0_entries + 4
    make, model = ascii_value("Apple"), ascii_value("iPhone 15")
    # IFD0's data (make, model) follows it; the EXIF IFD follows that.
    ifd0_data_length = sum(len(v[2]) + len(v[2]) % 2 for v in (make, model) if len(v[2]) > 4)
    exif_at = ifd0_at + ifd0_length + ifd0_data_length
    ifd0, ifd0_data = ifd([(0x010F, *make), (0x0110, *model), (0x8769, 4, 1, struct.pack(">I", exif_at))],
                          ifd0_at, ifd0_at + ifd0_length)
    taken = ascii_value("2024:05:01 12:20:30")
    exif_entries = [(0x9003, *taken), (0x927C, 7, len(note), note)]
    exif_length = 2 + 12 * len(exif_entries) + 4
    exif, exif_data = ifd(exif_entries, exif_at, exif_at + exif_length)
    tiff = b"MM\x00\x2a" + struct.pack(">I", ifd0_at) + ifd0 + ifd0_data + exif + exif_data
    return b"Exif\x00\x00" + tiff


def without_exif(jpeg):
    """The JPEG's SOI and segments up to its first scan, less any EXIF APP1, and the rest."""
    if jpeg[:2] != b"\xff\xd8":
        raise SystemExit("make-live-still.py: the input is not a JPEG")
    out = b"\xff\xd8"
    offset = 2
    while jpeg[offset] == 0xFF and jpeg[offset + 1] != 0xDA:
        (length,) = struct.unpack(">H", jpeg[offset + 2:offset + 4])
        segment = jpeg[offset:offset + 2 + length]
        if not (jpeg[offset + 1] == 0xE1 and segment[4:8] == b"Exif"):
            out += segment
        offset += 2 + length
    return out, jpeg[offset:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jpeg")
    parser.add_argument("identifier")
    parser.add_argument("out")
    args = parser.parse_args()
    head, rest = without_exif(open(args.jpeg, "rb").read())
    block = exif_block(args.identifier)
    app1 = b"\xff\xe1" + struct.pack(">H", 2 + len(block)) + block
    # After SOI and a JFIF APP0 when there is one, as cameras place it.
    at = 2
    if head[2:4] == b"\xff\xe0":
        at += 2 + struct.unpack(">H", head[4:6])[0]
    with open(args.out, "wb") as out:
        out.write(head[:at] + app1 + head[at:] + rest)


if __name__ == "__main__":
    main()
