import Foundation
@testable import Imaging
import Testing
import TestSupport

/// Thumbnails of phone photos from the preview they carry (a Multi-Picture Format index), and
/// every way a crafted index is refused without losing the thumbnail of the picture itself.
@Suite("Thumbnails from an embedded MPF preview", .timeLimit(.minutes(2)))
struct EmbeddedPreviewTests {
    static func path(_ name: String) throws -> String { try Corpus.file("special/\(name)").path(percentEncoded: false) }

    /// `image` written into `directory` as `name`; its path.
    static func written(_ image: RenderedImage, in directory: TemporaryDirectory, as name: String) throws -> String {
        let file = directory.appending(name).path(percentEncoded: false)
        try Data(image.data).write(to: URL(filePath: file))
        return file
    }

    /// `special/mpf-preview.jpg` with `edit` applied to its bytes, given where the index's
    /// byte-order mark is; written into `directory`.
    static func crafted(_ directory: TemporaryDirectory, _ edit: (inout [UInt8], _ base: Int) throws -> Void) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(filePath: path("mpf-preview.jpg"))))
        let signature: [UInt8] = Array("MPF\0".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == signature })
        try edit(&bytes, at + 4)
        let file = directory.appending("crafted.jpg").path(percentEncoded: false)
        try Data(bytes).write(to: URL(filePath: file))
        return file
    }

    /// Little-endian 32-bit value into `bytes` at `offset`.
    static func put(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// Where the second MP entry (the preview) starts, from the byte-order mark (make-mpf.py's layout).
    static let previewEntry = 8 + 2 + 3 * 12 + 4 + 16

    @Test("a phone photo's MPF index names its 1920×1440 preview, a JPEG inside the file")
    func previewIsFound() throws {
        let path = try Self.path("mpf-preview.jpg")
        let header = try ImageProbe.header(ofFileAt: path)
        let preview = try #require(EmbeddedPreview.find(inFileAt: path, primary: header, minimumWidth: 200, minimumHeight: 150))
        #expect(preview.width == 1920 && preview.height == 1440)
        let bytes = try #require(preview.bytes(inFileAt: path))
        #expect(bytes.prefix(2) == [0xFF, 0xD8])
        #expect(preview.offset + Int64(preview.length) == Int64(try Data(contentsOf: URL(filePath: path)).count))
        // A photo without an index, and a size the preview cannot give, find none.
        #expect(EmbeddedPreview.find(inFileAt: try Self.path("seed-3.7mb.jpg"), primary: header, minimumWidth: 1, minimumHeight: 1) == nil)
        #expect(EmbeddedPreview.find(inFileAt: path, primary: header, minimumWidth: 2000, minimumHeight: 1500) == nil)
    }

    @Test("a thumbnail the preview can give is made from it; a larger one from the picture itself")
    func thumbnailComesFromThePreviewWhenLargeEnough() async throws {
        let directory = try TemporaryDirectory("mpf")
        let marked = try Self.path("mpf-marked.jpg")
        let plain = try Self.written(try ThumbnailRenderer.render(fileAt: Self.path("seed-3.7mb.jpg"), maxPixelSize: 200), in: directory, as: "plain.jpg")
        let inverted = directory.appending("inverted.jpg").path(percentEncoded: false)
        try await VipsTool.run(["invert", plain, inverted])
        let small = try Self.written(try ThumbnailRenderer.render(fileAt: marked, maxPixelSize: 200), in: directory, as: "small.jpg")
        let large = try ThumbnailRenderer.render(fileAt: marked, maxPixelSize: 2400)
        let largePlain = try ThumbnailRenderer.render(fileAt: Self.path("seed-3.7mb.jpg"), maxPixelSize: 2400)
        // The marked file's preview has its colours inverted: a 200 px thumbnail shows them,
        // a 2400 px one (more than the preview's 1920) shows the picture.
        let fromPreview = try await ImageDifference.between(small, inverted, in: directory).mean
        let fromPicture = try await ImageDifference.between(small, plain, in: directory).mean
        #expect(fromPreview < 6 && fromPicture > 30, "against the inverted picture \(fromPreview), against the picture \(fromPicture)")
        #expect(large.data == largePlain.data)
    }

    @Test("from the preview, the thumbnail matches libvips' own of the picture, upright by the picture's orientation",
          arguments: ["mpf-preview.jpg", "mpf-rotated.jpg"])
    func previewThumbnailMatchesThePicture(name: String) async throws {
        let directory = try TemporaryDirectory("mpf")
        let path = try Self.path(name)
        let ours = try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200)
        let header = try ImageProbe.header(ofFileAt: path)
        #expect(max(ours.width, ours.height) == 200)
        #expect((ours.height > ours.width) == header.isTransposed)
        let file = try Self.written(ours, in: directory, as: "ours.jpg")
        // libvips reads no MPF index: its thumbnail decodes the picture.
        let reference = directory.appending("reference.jpg").path(percentEncoded: false)
        try await VipsTool.run(["thumbnail", path, reference, "200"])
        let difference = try await ImageDifference.between(file, reference, in: directory).mean
        #expect(difference < 6, "\(difference)")
    }

    @Test("an index entry that is no large thumbnail, lies past the end, is larger than the picture or is not a colour JPEG is ignored; the picture still renders",
          arguments: ["gain map type", "past the end", "offset zero", "huge entry count", "larger than the picture", "not a JPEG", "IFD out of range"])
    func craftedIndexIsIgnored(case name: String) async throws {
        let directory = try TemporaryDirectory("mpf-crafted")
        let file = try Self.crafted(directory) { bytes, base in
            let entry = base + Self.previewEntry
            switch name {
            case "gain map type": Self.put(0x000000, into: &bytes, at: entry)
            case "past the end": Self.put(UInt32(bytes.count), into: &bytes, at: entry + 8)
            case "offset zero": Self.put(0, into: &bytes, at: entry + 8)
            case "huge entry count": Self.put(16 * 1_000_000, into: &bytes, at: base + 8 + 2 + 2 * 12 + 4)
            case "larger than the picture":
                // The preview's frame header claims 8000×6000.
                let start = base + Int(UInt32(bytes[entry + 8]) | UInt32(bytes[entry + 9]) << 8 | UInt32(bytes[entry + 10]) << 16 | UInt32(bytes[entry + 11]) << 24)
                // Its 1440×1920 frame (not the EXIF thumbnail's, which comes first).
                let frame: [UInt8] = [0xFF, 0xC0]
                let size: [UInt8] = [0x05, 0xA0, 0x07, 0x80]
                let found = (start..<(bytes.count - 9)).first { (at: Int) -> Bool in
                    Array(bytes[at...(at + 1)]) == frame && Array(bytes[(at + 5)...(at + 8)]) == size
                }
                let sof = try #require(found)
                bytes[sof + 5] = 0x17; bytes[sof + 6] = 0x70; bytes[sof + 7] = 0x1F; bytes[sof + 8] = 0x40
            case "not a JPEG": Self.put(0x0101_0001, into: &bytes, at: entry)  // data format 1, a large thumbnail
            default: Self.put(0xFFFF_FF00, into: &bytes, at: base + 4)
            }
        }
        let header = try ImageProbe.header(ofFileAt: file)
        #expect(EmbeddedPreview.find(inFileAt: file, primary: header, minimumWidth: 200, minimumHeight: 150) == nil)
        let thumbnail = try ThumbnailRenderer.render(fileAt: file, maxPixelSize: 200)
        #expect(thumbnail.width == 200 && thumbnail.height == 150)
    }

    @Test("a preview whose header reads but whose data is damaged falls back to the picture")
    func damagedPreviewFallsBack() async throws {
        let directory = try TemporaryDirectory("mpf-damaged")
        let file = try Self.crafted(directory) { bytes, base in
            // The preview cut in half, and the index saying so: its header reads, its data ends early.
            let entry = base + Self.previewEntry
            let length = Int(UInt32(bytes[entry + 4]) | UInt32(bytes[entry + 5]) << 8 | UInt32(bytes[entry + 6]) << 16 | UInt32(bytes[entry + 7]) << 24)
            bytes.removeLast(length / 2)
            Self.put(UInt32(length - length / 2), into: &bytes, at: entry + 4)
        }
        let header = try ImageProbe.header(ofFileAt: file)
        #expect(EmbeddedPreview.find(inFileAt: file, primary: header, minimumWidth: 200, minimumHeight: 150) != nil)
        let rendered = try ThumbnailRenderer.render(fileAt: file, maxPixelSize: 200)
        let ours = try Self.written(rendered, in: directory, as: "ours.jpg")
        let reference = directory.appending("reference.jpg").path(percentEncoded: false)
        try await VipsTool.run(["thumbnail", try Self.path("seed-3.7mb.jpg"), reference, "200"])
        let difference = try await ImageDifference.between(ours, reference, in: directory).mean
        #expect(difference < 6, "\(difference)")
    }
}
