#!/usr/bin/env python3
"""Writes a PDF by hand, with Python's standard library only: PAGES letter-size pages, each
saying "Page N" in Helvetica, the first also showing the JPEG photo given (embedded as it is,
DCTDecode). The corpus's documents: a short one with a real photo on its first page, and one of
10,000 pages.

Usage: make-pdf.py OUTPUT PAGES [JPEG]
"""
import struct
import sys


def jpeg_size(data):
    """(width, height) from a JPEG's first frame header."""
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        i += 2 + length
    raise ValueError("no frame header in the JPEG")


def write(path, pages, jpeg=None):
    objects = []

    def add(body):
        objects.append(body)
        return len(objects)

    catalog, pages_id = add(None), add(None)
    image = None
    if jpeg:
        width, height = jpeg_size(jpeg)
        image = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
                    b"/Filter /DCTDecode /Length %d >>\nstream\n" % (width, height, len(jpeg)) + jpeg + b"\nendstream")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for number in range(1, pages + 1):
        text = b"BT /F1 24 Tf 72 720 Td (Page %d) Tj ET" % number
        if image and number == 1:
            text = b"q 468 0 0 351 72 300 cm /Im1 Do Q " + text
        content = add(b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream")
        resources = b"<< /Font << /F1 %d 0 R >>" % font + (b" /XObject << /Im1 %d 0 R >>" % image if image else b"") + b" >>"
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %d 0 R >>"
                        % (pages_id, resources, content)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    with open(path, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    photo = open(sys.argv[3], "rb").read() if len(sys.argv) == 4 else None
    write(sys.argv[1], int(sys.argv[2]), photo)
