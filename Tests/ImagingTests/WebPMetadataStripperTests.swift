@testable import Imaging
import Foundation
import Testing
import TestSupport

/// WebP metadata (EXIF, XMP, ICC) comes out through libwebpmux; the picture stays.
@Suite("WebP metadata stripping")
struct WebPMetadataStripperTests {
    /// A RIFF chunk: four-character name, little-endian size, payload, padding to even.
    static func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count)
        return Array(name.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + payload + (payload.count.isMultiple(of: 2) ? [] : [0])
    }

    /// The chunks of a RIFF WebP file, by name.
    static func chunkNames(_ webp: [UInt8]) -> [String] {
        var names: [String] = []
        var offset = 12
        while offset + 8 <= webp.count {
            names.append(String(decoding: webp[offset..<offset + 4], as: UTF8.self))
            let size = Int(webp[offset + 4]) | Int(webp[offset + 5]) << 8 | Int(webp[offset + 6]) << 16 | Int(webp[offset + 7]) << 24
            offset += 8 + size + (size & 1)
        }
        return names
    }

    /// The corpus WebP (a simple lossy one), made extended with ICC, EXIF and XMP chunks, the
    /// way a camera app or an editor writes them.
    static func webpWithMetadata() throws -> [UInt8] {
        let simple = [UInt8](try Data(contentsOf: Corpus.file("special/photo.webp")))
        let vp8 = Array(simple[12...])
        // The VP8 frame header: 3-byte tag, start code, then 14-bit width and height.
        let frame = Array(vp8[8...])
        let width = (Int(frame[6]) | Int(frame[7]) << 8) & 0x3FFF, height = (Int(frame[8]) | Int(frame[9]) << 8) & 0x3FFF
        func threeBytes(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let vp8x = chunk("VP8X", [0x20 | 0x08 | 0x04, 0, 0, 0] + threeBytes(width - 1) + threeBytes(height - 1))
        let body = vp8x + chunk("ICCP", Array(repeating: 7, count: 64)) + vp8
            + chunk("EXIF", Array("Exif\0\0GPS 51.5N 0.1W".utf8)) + chunk("XMP ", Array("<x:xmpmeta>secret</x:xmpmeta>".utf8))
        let size = UInt32(body.count + 4)
        return Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + Array("WEBP".utf8) + body
    }

    @Test("EXIF, XMP and ICC chunks go, the VP8X flags say so, and the image still decodes the same size")
    func metadataGoesPictureStays() throws {
        let original = try Self.webpWithMetadata()
        #expect(Self.chunkNames(original) == ["VP8X", "ICCP", "VP8 ", "EXIF", "XMP "])
        let stripped = WebPMetadataStripper.strip(original)
        let names = Self.chunkNames(stripped)
        #expect(!names.contains("EXIF") && !names.contains("XMP ") && !names.contains("ICCP"), "\(names)")
        #expect(names.contains("VP8 "))
        if let vp8x = names.firstIndex(of: "VP8X") {
            #expect(vp8x == 0)
            #expect(stripped[20] & (0x20 | 0x08 | 0x04) == 0, "no metadata flags left")
        }
        #expect(!String(decoding: stripped, as: UTF8.self).contains("secret"))

        let directory = try TemporaryDirectory("webp-strip")
        let before = directory.appending("before.webp"), after = directory.appending("after.webp")
        try Data(original).write(to: before)
        try Data(stripped).write(to: after)
        let expected = try ImageProbe.header(ofFileAt: before.path(percentEncoded: false))
        let header = try ImageProbe.header(ofFileAt: after.path(percentEncoded: false))
        #expect(header.width == expected.width && header.height == expected.height)
    }

    @Test("bytes that are not a WebP come back unchanged")
    func notAWebPIsUntouched() {
        for bytes in [[UInt8](), Array("RIFF....WAVE".utf8), [0xFF, 0xD8, 0xFF, 0xE0]] {
            #expect(WebPMetadataStripper.strip(bytes) == bytes)
        }
    }
}
