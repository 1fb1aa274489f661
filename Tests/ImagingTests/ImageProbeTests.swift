import Foundation
import Imaging
import Testing
import TestSupport

@Suite("Image header probe", .timeLimit(.minutes(1)))
struct ImageProbeTests {
    /// Width×height per corpus path, from the corpus's own MANIFEST.tsv (measured by vipsheader).
    static func manifestDimensions() throws -> [String: String] {
        let manifest = try String(contentsOf: Corpus.file("MANIFEST.tsv"), encoding: .utf8)
        var result: [String: String] = [:]
        for line in manifest.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count == 5 { result[fields[4]] = fields[2] }
        }
        return result
    }

    @Test("every good corpus image reports the size vipsheader reports", arguments: Corpus.goodNames)
    func goodImageHeaderMatchesManifest(name: String) throws {
        let header = try ImageProbe.header(ofFileAt: Corpus.file("good/\(name)").path(percentEncoded: false))
        let expected = try Self.manifestDimensions()["good/\(name)"]
        #expect("\(header.width)x\(header.height)" == expected)
        #expect(header.frameCount >= 1)
    }

    @Test("EXIF orientation 6 is read and swaps the displayed width and height")
    func orientationSixIsTransposed() throws {
        let header = try ImageProbe.header(ofFileAt: Corpus.file("special/orientation-6.jpg").path(percentEncoded: false))
        #expect(header.orientation == 6)
        #expect(header.width > header.height)
        #expect(header.displayWidth < header.displayHeight)
    }

    @Test("HEIC and PNG are recognised by their loaders")
    func heicAndPNGFormats() throws {
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/photo.heic").path(percentEncoded: false)).format == .heif)
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/photo.png").path(percentEncoded: false)).format == .png)
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/seed-3.7mb.jpg").path(percentEncoded: false)).format == .jpeg)
    }

    @Test("a decompression bomb's header is read without decoding its 900 megapixels")
    func bombHeaderIsCheap() throws {
        let header = try ImageProbe.header(ofFileAt: Corpus.file("bad/bomb.png").path(percentEncoded: false))
        #expect(header.pixelCount == 900_000_000)
    }

    @Test("files that are not images give a typed error", arguments: ["empty.jpg", "random.jpg", "text.png", "script.svg"])
    func nonImagesAreRejected(name: String) throws {
        #expect(throws: ImagingError.self) {
            try ImageProbe.header(ofFileAt: Corpus.file("bad/\(name)").path(percentEncoded: false))
        }
    }
}
