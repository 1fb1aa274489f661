import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Bad input leaves the store as it was", .timeLimit(.minutes(2)))
struct InputErrorTests {
    /// A store with one note holding one photo, and the note's id.
    static func seededStore(_ directory: TemporaryDirectory) async throws -> (URL, String) {
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("kept", store: store)
        let seeded = try await Attach.run(["import", "--note", note, Corpus.file("good/Aqua.jpg").path(percentEncoded: false)], store: store)
        guard seeded.exitCode == 0 else { throw Attach.Failed(outcome: seeded) }
        return (store, note)
    }

    @Test("an unreadable file is named with its cause, the rest of the import goes on")
    func unreadableFileIsReported() async throws {
        let directory = try TemporaryDirectory("unreadable")
        let (store, note) = try await Self.seededStore(directory)
        let secret = directory.appending("secret.jpg")
        try FileManager.default.copyItem(at: Corpus.file("good/Dune.jpg"), to: secret)
        chmod(secret.path(percentEncoded: false), 0o000)
        // Root reads anything, so as root the import runs as `nobody`, who may write the store but not read the file.
        var launcher: [String] = []
        if geteuid() == 0 {
            chmod(secret.path(percentEncoded: false), 0o600)
            _ = try await ChildProcess.run("/bin/chmod", ["-R", "a+rwX", store.path(percentEncoded: false)])
            launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        }
        let before = try await Attach.snapshot(store)
        let arguments = ["import", "--note", note, secret.path(percentEncoded: false)]
        let outcome = launcher.isEmpty
            ? try await Attach.run(arguments, store: store)
            : try await Attach.run(through: launcher, arguments, store: store)
        #expect(outcome.exitCode == 1)
        let errorLines = outcome.stderr.split(separator: "\n")
        #expect(errorLines.count == 1)
        #expect(errorLines.first?.contains("secret.jpg") == true)
        #expect(errorLines.first?.contains("Permission denied") == true)
        #expect(try await Attach.snapshot(store) == before)
    }

    @Test("a store path that is not a store is refused with one line")
    func notAStoreIsRefused() async throws {
        let directory = try TemporaryDirectory("notastore")
        let folder = directory.appending("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: folder.appending(path: "notes.txt"))
        for command in try [["list"], ["import", "--new-note", "x", Corpus.file("good/Aqua.jpg").path(percentEncoded: false)], ["init"]] {
            let outcome = try await Attach.run(command, store: folder)
            #expect(outcome.exitCode == 1)
            #expect(outcome.stderr.split(separator: "\n").count == 1)
            #expect(outcome.stderr.contains("is not an attachment store"), "\(outcome.stderr)")
        }
        #expect(Files.tree(folder) == ["notes.txt"])

        let missing = try await Attach.run(["stats"], store: directory.appending("nothing-here"))
        #expect(missing.exitCode == 1)
        #expect(missing.stderr.contains("attach init"))
    }

    @Test("a write failure mid-ingest names the file and the cause and stores nothing")
    func writeFailureMidIngestStoresNothing() async throws {
        let directory = try TemporaryDirectory("writefail")
        let (store, note) = try await Self.seededStore(directory)
        let before = try await Attach.snapshot(store)
        let photo = try Corpus.file("special/seed-3.7mb.jpg").path(percentEncoded: false)
        // The file-size limit makes the write fail with EFBIG after 2 MB of the 3.7 MB photo.
        let outcome = try await Attach.run(through: ["/usr/bin/prlimit", "--fsize=2000000"], ["import", "--note", note, photo], store: store)
        #expect(outcome.exitCode == 2)
        let errorLines = outcome.stderr.split(separator: "\n")
        #expect(errorLines.count == 1)
        #expect(errorLines.first?.contains("seed-3.7mb.jpg") == true, "\(outcome.stderr)")
        #expect(errorLines.first?.contains("File too large") == true, "\(outcome.stderr)")
        #expect(try await Attach.snapshot(store) == before)

        let retry = try await Attach.run(["import", "--note", note, photo], store: store)
        #expect(retry.exitCode == 0, "the store is usable again: \(retry.stderr)")
    }

    @Test("usage errors exit 1, help exits 0")
    func usageErrorsExitOne() async throws {
        let directory = try TemporaryDirectory("usage")
        #expect(try await Attach.run(["import", "a.jpg"], store: directory.url).exitCode == 1)
        #expect(try await Attach.run(["gc", "--grace", "soon"], store: directory.url).exitCode == 1)
        #expect(try await Attach.run(["frobnicate"], store: nil).exitCode == 1)
        let help = try await Attach.run(["--help"], store: nil)
        #expect(help.exitCode == 0)
        #expect(help.stdout.contains("import"))
    }

    @Test("a malformed --blobs names the value and what would work, and exits 1", arguments: [
        "bogus://x", "file://relative/path", "file:///", "s3://", "s3://bucket?colour=blue",
    ])
    func malformedBlobLocationIsRefused(location: String) async throws {
        let directory = try TemporaryDirectory("blobs-arg")
        let outcome = try await Attach.run(["list", "--blobs", location], store: directory.appending("store"))
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains("--blobs \(location):"), "\(outcome.stderr)")
    }
}
