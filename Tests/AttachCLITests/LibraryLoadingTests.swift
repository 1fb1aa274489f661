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

    @Test("importing a JPEG and fetching one from a peer read its header without libvips; a CMYK JPEG still gets its size from libvips")
    func jpegHeadersNeedNoLibvips() async throws {
        let directory = try TemporaryDirectory("vipsjpeg")
        let (a, b) = (directory.appending("a"), directory.appending("b"))
        for store in [a, b] { try await Attach.initStore(store) }
        let photo = try Corpus.file("special/orientation-6.jpg").path(percentEncoded: false)
        let (imported, openedOnImport) = try await Self.openedLibraries(["import", "--json", "--no-thumbnails", "--new-note", "photos", photo], store: a)
        #expect(imported.exitCode == 0, "\(imported.stderr.suffix(500))")
        #expect(!openedOnImport, "attach import of a JPEG loaded libvips")
        let record = try #require(Attach.importedLines(imported.stdout).first?.attachment)
        let image = record["image"] as? [String: Int]
        #expect(image == ["width": 1920, "height": 1280, "orientation": 6], "\(record)")

        let server = try await ServerProcess(store: a, port: try ServerProcess.freePort())
        defer { server.process.kill() }
        let pulled = try await Attach.run(["sync", "pull", server.url], store: b)
        #expect(pulled.exitCode == 0, "\(pulled.stderr.suffix(500))")
        let id = try #require(record["id"] as? String)
        let (fetched, openedOnFetch) = try await Self.openedLibraries(["fetch", id, "--peer", server.url], store: b)
        #expect(fetched.exitCode == 0, "\(fetched.stderr.suffix(500))")
        #expect(!openedOnFetch, "attach fetch of a JPEG loaded libvips")
        let listed = try await Attach.run(["list", "--json"], store: b)
        #expect(listed.stdout.contains("\"orientation\" : 6") || listed.stdout.contains("\"orientation\":6"), "\(listed.stdout.prefix(800))")

        let cmyk = try Corpus.file("special/cmyk.jpg").path(percentEncoded: false)
        let (cmykImport, openedOnCMYK) = try await Self.openedLibraries(["import", "--json", "--no-thumbnails", "--new-note", "print", cmyk], store: a)
        #expect(cmykImport.exitCode == 0, "\(cmykImport.stderr.suffix(500))")
        #expect(openedOnCMYK, "a CMYK JPEG's header is libvips' to read")
        let cmykRecord = try #require(Attach.importedLines(cmykImport.stdout).first?.attachment)
        #expect(cmykRecord["image"] as? [String: Int] == ["width": 2560, "height": 1600, "orientation": 1], "\(cmykRecord)")
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
