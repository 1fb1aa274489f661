#!/usr/bin/env python3
"""make-motion-photo.py JPEG MP4 OUT [--micro-video]

Writes OUT: an Android motion photo, the JPEG with the MP4 clip appended and an XMP segment
(APP1, "http://ns.adobe.com/xap/1.0/\\0") saying so, in Google's format: GCamera:MotionPhoto="1"
and a Container:Directory whose MotionPhoto item gives the clip's length (the clip is the file's
last that many bytes). With --micro-video, the older form instead: GCamera:MicroVideo="1" and
GCamera:MicroVideoOffset, the clip's length again. Any XMP of the input is kept ahead of ours
being read first only if it came first; the input should carry none.

Used by the corpus builder (live/PXL_*.MP.jpg); standard library only.
"""
import argparse
import importlib.util
import os
import struct

XMP_SIGNATURE = b"http://ns.adobe.com/xap/1.0/\x00"


def xmp_packet(video_length, micro_video):
    if micro_video:
        description = (
            '<rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" '
            f'GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="{video_length}" '
            'GCamera:MicroVideoPresentationTimestampUs="500000"/>'
        )
    else:
        description = (
            '<rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" '
            'xmlns:Container="http://ns.google.com/photos/1.0/container/" '
            'xmlns:Item="http://ns.google.com/photos/1.0/container/item/" '
            'GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="500000">'
            '<Container:Directory><rdf:Seq>'
            '<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>'
            f'<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="{video_length}" Item:Padding="0"/></rdf:li>'
            '</rdf:Seq></Container:Directory></rdf:Description>'
        )
    return (
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        + description + '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
    ).encode("utf-8")


def insertion_point(jpeg):
    """The offset after SOI and the APP0/APP1 segments that follow it: make-mpf.py's rule."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-mpf.py")
    spec = importlib.util.spec_from_file_location("make_mpf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.insertion_point(jpeg)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jpeg")
    parser.add_argument("mp4")
    parser.add_argument("out")
    parser.add_argument("--micro-video", action="store_true")
    args = parser.parse_args()
    jpeg = open(args.jpeg, "rb").read()
    video = open(args.mp4, "rb").read()
    if video[4:8] != b"ftyp":
        raise SystemExit("make-motion-photo.py: the clip is not an MP4")
    body = XMP_SIGNATURE + xmp_packet(len(video), args.micro_video)
    segment = b"\xff\xe1" + struct.pack(">H", 2 + len(body)) + body
    at = insertion_point(jpeg)
    with open(args.out, "wb") as out:
        out.write(jpeg[:at] + segment + jpeg[at:] + video)


if __name__ == "__main__":
    main()
