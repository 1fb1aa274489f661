import Foundation
@testable import Imaging
import Testing
import TestSupport

/// Thumbnails of progressive JPEGs from their DC scans alone: the picture the whole file gives
/// within a level or two, and the whole file whenever the cut cannot be trusted.
@Suite("Thumbnails of progressive JPEGs from their DC scans", .timeLimit(.minutes(2)))
struct ProgressiveDCStreamTests {
    static func path(_ name: String) throws -> String { try Corpus.file(name).path(percentEncoded: false) }

    /// `source` re-coded progressive without loss by jpegtran, into `directory`.
    static func progressive(_ source: String, in directory: TemporaryDirectory) async throws -> String {
        let output = directory.appending("progressive.jpg").path(percentEncoded: false)
        let outcome = try await ChildProcess.run("/usr/bin/jpegtran", ["-copy", "all", "-progressive", "-outfile", output, source])
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        return output
    }

    /// How far libvips' thumbnail of the cut stream may be from its thumbnail of the whole
    /// file: the lightness is exact, a subsampled colour component may lack the last bit of its
    /// lowest AC coefficients (measured: at most 2 levels, 0.3 on average).
    static let tolerance = (mean: 1.0, max: 8.0)

    /// Checks that the progressive JPEG at `path` is thumbnailed at `size` from its cut stream,
    /// that libvips makes the whole file's thumbnail from that stream within ``tolerance``, and
    /// that ours is upright and matches libvips' own within what a JPEG encode changes.
    static func checkCut(of path: String, size: Int, in directory: TemporaryDirectory) async throws {
        let header = try ImageProbe.header(ofFileAt: path)
        let stream = try #require(ProgressiveDCStream.stream(ofFileAt: path))
        let fileSize = try Data(contentsOf: URL(filePath: path)).count
        #expect(stream.count * 2 < fileSize, "\(stream.count) of \(fileSize) bytes")
        #expect(ThumbnailRenderer.smallerSource(ofFileAt: path, header: header, size: size) == stream)

        let cut = directory.appending("cut.jpg").path(percentEncoded: false)
        try Data(stream).write(to: URL(filePath: cut))
        let (fromCut, fromFile) = (directory.appending("from-cut.v").path(percentEncoded: false),
                                   directory.appending("from-file.v").path(percentEncoded: false))
        try await VipsTool.run(["thumbnail", cut, fromCut, "\(size)"])
        try await VipsTool.run(["thumbnail", path, fromFile, "\(size)"])
        let difference = try await ImageDifference.between(fromCut, fromFile, in: directory)
        #expect(difference.mean < tolerance.mean && difference.max <= tolerance.max, "\(difference)")

        let ours = try ThumbnailRenderer.render(fileAt: path, maxPixelSize: size)
        #expect(max(ours.width, ours.height) == size)
        #expect((ours.height > ours.width) == header.isTransposed)
        let fromFileJPEG = directory.appending("from-file.jpg").path(percentEncoded: false)
        try await VipsTool.run(["copy", fromFile, fromFileJPEG])
        let oursFile = directory.appending("ours.jpg").path(percentEncoded: false)
        try Data(ours.data).write(to: URL(filePath: oursFile))
        let encoded = try await ImageDifference.between(oursFile, fromFileJPEG, in: directory)
        #expect(encoded.mean < 6, "\(encoded)")
    }

    @Test("a progressive JPEG shrunk by 8 on load is thumbnailed from about a quarter of its bytes, as from the whole file",
          arguments: [100, 150])
    func cutStreamGivesTheSameThumbnail(size: Int) async throws {
        try await Self.checkCut(of: Self.path("special/progressive.jpg"), size: size, in: TemporaryDirectory("progressive"))
    }

    @Test("a 12 MP photo and a photo with EXIF orientation 6, re-coded progressive, are thumbnailed from their cut streams, upright",
          arguments: ["special/seed-3.7mb.jpg", "special/orientation-6.jpg"])
    func recodedPhotosMatch(name: String) async throws {
        let directory = try TemporaryDirectory("progressive")
        let progressive = try await Self.progressive(Self.path(name), in: directory)
        let header = try ImageProbe.header(ofFileAt: progressive)
        try await Self.checkCut(of: progressive, size: max(header.width, header.height) / 20, in: directory)
    }

    @Test("a baseline JPEG, or a thumbnail libvips would not shrink by 8, is made from the whole file")
    func otherwiseTheWholeFile() throws {
        let baseline = try Self.path("special/baseline.jpg")
        #expect(ProgressiveDCStream.stream(ofFileAt: baseline) == nil)
        let progressive = try Self.path("special/progressive.jpg")
        let header = try ImageProbe.header(ofFileAt: progressive)
        #expect(ThumbnailRenderer.smallerSource(ofFileAt: progressive, header: header, size: 400) == nil)
        #expect(try ThumbnailRenderer.render(fileAt: progressive, maxPixelSize: 400).data
            == (try ThumbnailRenderer.render(fileAt: baseline, maxPixelSize: 400)).data)
    }

    @Test("a cut stream longer than its limit is not kept: the whole file is decoded instead")
    func streamOverTheLimitIsDropped() throws {
        let progressive = try Self.path("special/progressive.jpg")
        let whole = try #require(ProgressiveDCStream.stream(ofFileAt: progressive))
        #expect(ProgressiveDCStream.stream(ofFileAt: progressive, limit: whole.count) == whole)
        #expect(ProgressiveDCStream.stream(ofFileAt: progressive, limit: whole.count - 3) == nil)
        #expect(ProgressiveDCStream.stream(ofFileAt: progressive, limit: 1_000) == nil)
    }

    @Test("a progressive JPEG cut short, with a stray marker or with an arithmetic frame gives no stream; a cut one is still refused as truncated",
          arguments: ["cut in an AC scan", "cut in the first scan", "stray marker", "arithmetic frame", "scan header too short"])
    func damagedFilesGiveNoStream(damage: String) throws {
        let directory = try TemporaryDirectory("progressive-damaged")
        var bytes = [UInt8](try Data(contentsOf: URL(filePath: Self.path("special/progressive.jpg"))))
        // The header's segments, walked by their lengths (the EXIF block holds a JPEG of its own),
        // up to the first scan; the later scans are the FF DA after it (entropy data stuffs FF).
        var at = 2
        var frame = 0
        while bytes[at + 1] != 0xDA {
            if bytes[at + 1] == 0xC2 { frame = at }
            at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
        }
        let firstScan = at
        let scans = [firstScan] + ((firstScan + 2)..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
        #expect(frame > 0 && scans.count >= 6)
        switch damage {
        case "cut in an AC scan": bytes.removeLast(bytes.count - (scans[scans.count / 2] + 500))
        case "cut in the first scan": bytes.removeLast(bytes.count - (scans[0] + 40))
        case "stray marker": bytes[scans[1] + 2] = 0xFF; bytes[scans[1] + 3] = 0x01  // a TEM marker where a length should be
        case "arithmetic frame": bytes[frame + 1] = 0xCA
        default: bytes[scans[0] + 3] = 3  // a scan header of length 3: no room for its fields
        }
        let file = directory.appending("damaged.jpg").path(percentEncoded: false)
        try Data(bytes).write(to: URL(filePath: file))
        #expect(ProgressiveDCStream.stream(ofFileAt: file) == nil)
        if damage.hasPrefix("cut") {
            #expect(throws: ImagingError.self) { try ThumbnailRenderer.render(fileAt: file, maxPixelSize: 100) }
        }
    }
}
