import Foundation
import Testing
import TestSupport

/// libvips is loaded on first use (issue 13: starting the CLI spent most of its time in the
/// dynamic loader, mapping the hundred libraries libvips brings). The dynamic loader's own
/// trace (`LD_DEBUG=files`) shows which libraries each run opened.
@Suite("Loading libvips only for images", .timeLimit(.minutes(3)))
struct LibraryLoadingTests {
    /// The libraries the dynamic loader opened while `attach ARGUMENTS` ran.
    static func openedLibraries(_ arguments: [String], store: URL?) async throws -> (outcome: ChildProcess.Outcome, opened: Bool) {
        let outcome = try await Attach.run(arguments, store: store, environment: ["LD_DEBUG": "files"])
        return (outcome, outcome.stderr.contains("file=libvips.so"))
    }

    @Test("commands that touch no image never load libvips; the first thumbnail loads it")
    func libvipsLoadsOnlyForImages() async throws {
        let directory = try TemporaryDirectory("vipsload")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photo = try Corpus.file("special/seed-3.7mb.jpg").path(percentEncoded: false)
        let imported = try await Attach.run(["import", "--json", "--no-thumbnails", "--new-note", "photos", photo], store: store)
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        let id = try #require(Attach.importedLines(imported.stdout).first?.attachment["id"] as? String)

        for command in [["--version"], ["stats"], ["list"], ["note", "list"], ["verify"]] {
            let (outcome, opened) = try await Self.openedLibraries(command, store: command == ["--version"] ? nil : store)
            #expect(outcome.exitCode == 0, "\(command): \(outcome.stderr.suffix(500))")
            #expect(!opened, "attach \(command.joined(separator: " ")) loaded libvips")
        }
        let output = directory.appending("thumb.jpg").path(percentEncoded: false)
        let (thumb, opened) = try await Self.openedLibraries(["thumb", id, "-o", output], store: store)
        #expect(thumb.exitCode == 0, "\(thumb.stderr.suffix(500))")
        #expect(opened, "attach thumb rendered without loading libvips?")
        #expect(try Data(contentsOf: URL(filePath: output)).starts(with: [0xFF, 0xD8, 0xFF]))
    }

    @Test("importing only files that are not images never loads libvips and exits cleanly")
    func importOfNonImagesNeverLoadsLibvips() async throws {
        let directory = try TemporaryDirectory("vipsnonimage")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let files = try ["bad/empty.jpg", "bad/text.png", "bad/script.svg"].map { try Corpus.file($0).path(percentEncoded: false) }
        let (outcome, opened) = try await Self.openedLibraries(["import", "--no-thumbnails", "--new-note", "not images"] + files, store: store)
        #expect(outcome.exitCode == 0, "\(outcome.stderr.suffix(2000))")
        #expect(outcome.signal == nil)
        #expect(outcome.stdout.contains("imported 3 files"), "\(outcome.stdout)")
        #expect(!opened, "attach import of non-images loaded libvips")
    }
}
