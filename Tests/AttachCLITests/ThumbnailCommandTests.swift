import Foundation
import Imaging
import Testing
import TestSupport

@Suite("Thumbnails from the command line", .timeLimit(.minutes(3)))
struct ThumbnailCommandTests {
    /// A store holding every bad corpus file and one good photo, imported without thumbnails.
    static func store(_ directory: TemporaryDirectory) async throws -> (URL, [String: String]) {
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let files = try Corpus.files(in: "bad").map { $0.path(percentEncoded: false) }
            + [Corpus.file("special/seed-3.7mb.jpg").path(percentEncoded: false)]
        let imported = try await Attach.run(["import", "--json", "--no-thumbnails", "--new-note", "mixed"] + files, store: store)
        guard imported.exitCode == 0 else { throw Attach.Failed(outcome: imported) }
        let ids = Dictionary(uniqueKeysWithValues: Attach.importedLines(imported.stdout).map {
            (URL(filePath: $0.file).lastPathComponent, $0.attachment["id"] as! String)
        })
        return (store, ids)
    }

    @Test("every bad file gives one typed error line with no memory spike, and the store stays usable")
    func badFilesFailWithoutMemorySpike() async throws {
        let directory = try TemporaryDirectory("badthumbs")
        let (store, ids) = try await Self.store(directory)
        let output = directory.appending("thumb.jpg").path(percentEncoded: false)
        let good = try await Attach.run(["thumb", ids["seed-3.7mb.jpg"]!, "-o", output], store: store, measuringMemory: true)
        #expect(good.exitCode == 0, "\(good.stderr)")
        let baseline = good.peakResidentBytes

        for name in try Corpus.files(in: "bad").map(\.lastPathComponent) {
            let outcome = try await Attach.run(["thumb", ids[name]!, "-o", output + ".bad"], store: store, measuringMemory: true)
            #expect(outcome.exitCode == 1, "\(name)")
            #expect(outcome.stderr.split(separator: "\n").count == 1, "\(name): \(outcome.stderr)")
            #expect(outcome.stderr.contains(ids[name]!))
            // Decoding a 12 MP photo at 1/8 scale is the yardstick; no bad file may cost more.
            #expect(outcome.peakResidentBytes < baseline + (8 << 20), "\(name): \(outcome.peakResidentBytes >> 20) MB vs \(baseline >> 20) MB")
        }
        #expect(!FileManager.default.fileExists(atPath: output + ".bad"))
        #expect(try await Attach.run(["verify"], store: store).exitCode == 0)
    }

    @Test("thumb writes an upright thumbnail of the asked size")
    func thumbWritesAFile() async throws {
        let directory = try TemporaryDirectory("thumb")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let imported = try await Attach.run(["import", "--json", "--new-note", "o", Corpus.file("special/orientation-6.jpg").path(percentEncoded: false)], store: store)
        let id = try #require(Attach.importedLines(imported.stdout).first?.attachment["id"] as? String)
        let output = directory.appending("o.jpg")
        let outcome = try await Attach.run(["thumb", id, "--size", "320", "-o", output.path(percentEncoded: false)], store: store)
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        let header = try ImageProbe.header(ofFileAt: output.path(percentEncoded: false))
        #expect(header.height == 320)
        #expect(header.width < 320)
        #expect(header.orientation == 1)
        #expect(EncodedImage.metadataMarkers(in: try Data(contentsOf: output)).isEmpty)
    }

    @Test("import makes thumbnails unless told not to; thumbs fills the cache; cache clear empties it")
    func thumbsAndCacheCommands() async throws {
        let directory = try TemporaryDirectory("thumbs")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photos = try Corpus.files(in: "good").prefix(6).map { $0.path(percentEncoded: false) }
        _ = try await Attach.run(["import", "--no-thumbnails", "--new-note", "later"] + photos.prefix(3), store: store)
        #expect(try await Self.cachedFiles(store) == 0)
        _ = try await Attach.run(["import", "--new-note", "now"] + photos.suffix(3), store: store)
        #expect(try await Self.cachedFiles(store) == 3)

        let thumbs = try await Attach.run(["thumbs", "--json"], store: store)
        #expect(thumbs.exitCode == 0, "\(thumbs.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(thumbs.stdout.utf8)) as? [String: Any])
        #expect(summary["images"] as? Int == 6)
        #expect(summary["made"] as? Int == 3)
        #expect(summary["fromCache"] as? Int == 3)
        #expect(try await Self.cachedFiles(store) == 6)

        let cleared = try await Attach.run(["cache", "clear"], store: store)
        #expect(cleared.stdout.contains("removed 6 cached thumbnails"))
        #expect(try await Self.cachedFiles(store) == 0)
    }

    static func cachedFiles(_ store: URL) async throws -> Int {
        let stats = try await Attach.run(["cache", "stats", "--json"], store: store)
        let json = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        return json?["files"] as? Int ?? -1
    }
}
