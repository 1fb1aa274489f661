@testable import AttachmentStore
import Testing

/// Magic-byte sniffing at its edges, beyond ``MediaTypeSnifferTests``: every ISO-BMFF brand
/// the sniffer names, signatures cut short, text that begins with a signature, control bytes,
/// and which media types count as readable rasters. Every header is built here, a few bytes each.
@Suite("Media type sniffing at the edges")
struct MediaTypeSnifferEdgeCaseTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    /// An ISO-BMFF file's first box: size, `ftyp`, the major brand, a minor version.
    static func ftyp(_ brand: [UInt8]) -> [UInt8] { [0, 0, 0, 24] + bytes("ftyp") + brand + [0, 0, 0, 0] }
    static func ftyp(_ brand: String) -> [UInt8] { ftyp(bytes(brand)) }
    static func sniff(_ head: [UInt8]) -> String { MediaTypeSniffer.mediaType(of: head) }

    @Test("the major brand of an ftyp box decides HEIC, HEIF, AVIF or a video; brands are case-sensitive", arguments: [
        ("avis", "image/avif"), ("heim", "image/heic"), ("heis", "image/heic"), ("hevc", "image/heic"),
        ("hevx", "image/heic"), ("msf1", "image/heif"), ("mp42", "video/mp4"), ("crx ", "video/mp4"),
        ("HEIC", "video/mp4"), ("Avif", "video/mp4"),
    ])
    func brands(brand: String, expected: String) {
        #expect(Self.sniff(Self.ftyp(brand)) == expected)
    }

    @Test("a BMP needs its reserved header fields zero: text that starts with \"BM\" stays text")
    func bmpNeedsReservedZeros() {
        let header = Self.bytes("BM") + [0x36, 0x10, 0, 0] + [0, 0, 0, 0] + [0x36, 0, 0, 0] + [40, 0, 0, 0]
        #expect(Self.sniff(header) == "image/bmp")
        #expect(Self.sniff(Self.bytes("BMW service history, 2021")) == "text/plain")
        #expect(Self.sniff(Self.bytes("BM") + [0x36, 0x10, 0, 0, 1, 0, 0, 0] + Array(repeating: 0, count: 10)) == "application/octet-stream")
    }

    @Test("an ftyp box with a brand that is not UTF-8 is taken for a video, never for an image")
    func binaryBrand() {
        #expect(Self.sniff(Self.ftyp([0xFF, 0xFE, 0x00, 0x80])) == "video/mp4")
    }

    @Test("an ftyp box is recognised from its first 12 bytes alone, and not from fewer")
    func ftypLength() {
        #expect(Self.sniff([0, 0, 0, 24] + Self.bytes("ftypavif")) == "image/avif")
        #expect(Self.sniff([0, 0, 0, 24] + Self.bytes("ftypavi")) == "application/octet-stream")
        #expect(Self.sniff([0, 0, 0, 24] + Self.bytes("ftyp")) == "application/octet-stream")
        #expect(Self.sniff(Self.bytes("ftypheic") + [0, 0, 0, 0]) == "application/octet-stream", "ftyp must sit at offset 4")
    }

    @Test("a signature cut short is not taken for its format", arguments: [
        ([0xFF, 0xD8], "application/octet-stream"),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A], "application/octet-stream"),
        (bytes("GIF89"), "text/plain"), (bytes("GIF8"), "text/plain"),
        (bytes("RIFF") + [0x24, 0, 0, 0] + bytes("WEB"), "application/octet-stream"),
        (bytes("RIFF"), "text/plain"),
        (bytes("II*"), "text/plain"), ([0x4D, 0x4D, 0x00], "application/octet-stream"),
        (bytes("%PDF"), "text/plain"), ([0x50, 0x4B, 0x03], "application/octet-stream"),
        ([0x1F], "application/octet-stream"),
        (bytes("BM") + Array(repeating: 0, count: 12), "application/octet-stream"),
    ] as [([UInt8], String)])
    func truncated(head: [UInt8], expected: String) {
        #expect(Self.sniff(head) == expected)
    }

    @Test("only the first bytes count: anything may follow a signature", arguments: [
        ([0xFF, 0xD8, 0xFF], "image/jpeg"),
        ([0x49, 0x49, 0x2A, 0x00], "image/tiff"),
        ([0x4D, 0x4D, 0x00, 0x2A], "image/tiff"),
        (bytes("GIF87a"), "image/gif"),
    ] as [([UInt8], String)])
    func signatureThenAnything(signature: [UInt8], expected: String) {
        #expect(Self.sniff(signature) == expected)
        #expect(Self.sniff(signature + Self.bytes("<svg><html>")) == expected)
        #expect(Self.sniff(signature + Array(repeating: 0xFF, count: 4096)) == expected)
    }

    @Test("TIFF needs its byte-order mark and 42 in that order; a mixed or BigTIFF header is not TIFF", arguments: [
        [0x49, 0x49, 0x00, 0x2A], [0x4D, 0x4D, 0x2A, 0x00], [0x49, 0x4D, 0x2A, 0x00], [0x49, 0x49, 0x2B, 0x00, 8, 0],
    ] as [[UInt8]])
    func tiffByteOrder(head: [UInt8]) {
        #expect(Self.sniff(head) != "image/tiff")
    }

    @Test("text that begins with a format's signature is taken for that format", arguments: [
        ("GIF89a is my favourite format", "image/gif"),
        ("%PDF-like notes, not a PDF", "application/pdf"),
        ("RIFF and WEBP, a glossary", "text/plain"),
        ("RIFFxxxxWEBP glossary", "image/webp"),
        ("abcdftypheic and more text", "image/heic"),
        ("abcdftypnote and more text", "video/mp4"),
    ])
    func textLookingLikeASignature(text: String, expected: String) {
        #expect(Self.sniff(Self.bytes(text)) == expected)
    }

    @Test("text may hold tab, line feed, form feed, carriage return and DEL, but no other control byte", arguments: [
        (bytes("a\tb\nc\u{0C}d\re"), "text/plain"), (bytes("a\u{7F}b"), "text/plain"),
        (bytes("a\u{1B}[31mred"), "application/octet-stream"), (bytes("a\u{0B}b"), "application/octet-stream"),
        (bytes("a\u{01}b"), "application/octet-stream"),
        (bytes("   \n\t "), "text/plain"), ([0xEF, 0xBB, 0xBF], "text/plain"),
        (bytes("日本語のメモ"), "text/plain"), (bytes("a 😀") + [0xF0, 0x9F, 0x98], "text/plain"),
        (bytes("\u{FEFF}\n  <svg/>"), "image/svg+xml"), (bytes("\n<?XML version='1.0'?>"), "application/xml"),
        (bytes("<!DOCTYPE html><body><svg></svg>"), "image/svg+xml"),
        (bytes("text before <html>"), "text/plain"), (bytes("<!doctype htm"), "text/plain"),
    ] as [([UInt8], String)])
    func textAndControlBytes(head: [UInt8], expected: String) {
        #expect(Self.sniff(head) == expected)
    }

    @Test("exactly the eight raster types are readable, spelled exactly as the sniffer spells them", arguments: [
        ("image/png", true), ("image/gif", true), ("image/webp", true), ("image/tiff", true), ("image/heic", true),
        ("image/avif", true), ("IMAGE/JPEG", false), ("image/jpeg; q=1", false), (" image/png", false), ("image/jpg", false),
        ("image/heic-sequence", false), ("image/x-icon", false), ("video/mp4", false), ("application/octet-stream", false), ("", false),
    ])
    func readableRasters(type: String, readable: Bool) {
        #expect(MediaTypeSniffer.isReadableRaster(type) == readable)
    }

    @Test("every image header the sniffer names is readable except BMP, and no other answer is")
    func sniffedTypesAgreeWithReadability() {
        let heads: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Self.bytes("GIF89a"),
            Self.bytes("RIFF") + [0, 0, 0, 0] + Self.bytes("WEBP"), [0x49, 0x49, 0x2A, 0x00], Self.ftyp("heic"),
            Self.ftyp("mif1"), Self.ftyp("avif"), Self.ftyp("isom"), Self.bytes("BM") + Array(repeating: 0, count: 13),
            Self.bytes("%PDF-1.4"), [0x50, 0x4B, 0x03, 0x04], [0x1F, 0x8B], Self.bytes("<svg/>"), Self.bytes("plain"), [0x00],
        ]
        for head in heads {
            let type = Self.sniff(head)
            #expect(MediaTypeSniffer.isReadableRaster(type) == (type.hasPrefix("image/") && type != "image/bmp" && type != "image/svg+xml"), "\(type)")
        }
    }
}
