@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The media type comes from the bytes, never from a name.
@Suite("Media type sniffing")
struct MediaTypeSnifferTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func ftyp(_ brand: String) -> [UInt8] { [0, 0, 0, 24] + bytes("ftyp" + brand) + [0, 0, 0, 0] }

    @Test("signatures", arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0], "image/jpeg"),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], "image/png"),
        (bytes("GIF89a..."), "image/gif"), (bytes("GIF87a..."), "image/gif"),
        (bytes("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 "), "image/webp"),
        (bytes("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt "), "application/octet-stream"),
        ([0x49, 0x49, 0x2A, 0x00, 8], "image/tiff"), ([0x4D, 0x4D, 0x00, 0x2A, 0], "image/tiff"),
        (ftyp("heic"), "image/heic"), (ftyp("heix"), "image/heic"), (ftyp("mif1"), "image/heif"),
        (ftyp("avif"), "image/avif"), (ftyp("qt  "), "video/quicktime"), (ftyp("isom"), "video/mp4"),
        (bytes("BM") + Array(repeating: 0, count: 20), "image/bmp"),
        (bytes("%PDF-1.7"), "application/pdf"),
        ([0x50, 0x4B, 0x03, 0x04], "application/zip"), ([0x1F, 0x8B, 8], "application/gzip"),
    ] as [([UInt8], String)])
    func signatures(head: [UInt8], expected: String) {
        #expect(MediaTypeSniffer.mediaType(of: head) == expected)
    }

    @Test("text, markup and what is neither", arguments: [
        (bytes("  <svg xmlns='http://www.w3.org/2000/svg'><script>x</script></svg>"), "image/svg+xml"),
        (bytes("<?xml version='1.0'?><svg/>"), "image/svg+xml"),
        (bytes("\u{FEFF}<!DOCTYPE html><title>x</title>"), "text/html"),
        (bytes("<HTML><body>"), "text/html"),
        (bytes("<?xml version='1.0'?><note/>"), "application/xml"),
        (bytes("shopping list\r\n\tmilk\n"), "text/plain"),
        (bytes("café") + [0xC3], "text/plain"),
        (bytes("text with a NUL\u{0} inside"), "application/octet-stream"),
        ([0xC3, 0x28, 0x41], "application/octet-stream"),
        ([], "application/octet-stream"),
        ([0xFF, 0xD8], "application/octet-stream"),
        (bytes("BM"), "text/plain"),
    ] as [([UInt8], String)])
    func textAndMarkup(head: [UInt8], expected: String) {
        #expect(MediaTypeSniffer.mediaType(of: head) == expected)
    }

    @Test("every real image of the corpus is recognised by its first bytes, whatever its name")
    func corpusImagesAreRecognised() throws {
        let expected = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp",
                        "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic", "avif": "image/avif", "gif": "image/gif"]
        var checked = 0
        for folder in ["good", "special"] {
            for file in try Corpus.files(in: folder) {
                guard let type = expected[file.pathExtension.lowercased()] else { continue }
                let head = try [UInt8](FileHandle(forReadingFrom: file).read(upToCount: 64) ?? Data())
                #expect(MediaTypeSniffer.mediaType(of: head) == type, "\(file.lastPathComponent)")
                #expect(MediaTypeSniffer.isReadableRaster(type))
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    @Test("only raster formats libvips reads through the allowed loaders count as readable", arguments: [
        ("image/jpeg", true), ("image/heif", true), ("image/svg+xml", false), ("image/bmp", false),
        ("application/pdf", false), ("text/plain", false), ("video/quicktime", false),
    ])
    func readableRasters(type: String, readable: Bool) {
        #expect(MediaTypeSniffer.isReadableRaster(type) == readable)
    }
}
