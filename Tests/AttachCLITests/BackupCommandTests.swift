import Foundation
import Testing
import TestSupport

/// `attach backup` and `attach restore` as a user runs them.
@Suite("attach backup and restore", .timeLimit(.minutes(3)))
struct BackupCommandTests {
    @Test("backup --json reports what moved, a second backup reuses it, and restore makes a store verify calls clean")
    func backupAndRestore() async throws {
        let directory = try TemporaryDirectory("backup-cli")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photos = try Corpus.files(in: "fifty").prefix(6).map { $0.path(percentEncoded: false) }
        #expect(try await Attach.run(["import", "--new-note", "Trip"] + photos.prefix(4), store: store).exitCode == 0)

        let backup = directory.appending("backup").path(percentEncoded: false)
        let first = try await Attach.run(["backup", backup, "--json"], store: store)
        #expect(first.exitCode == 0, "\(first.stderr)")
        let firstReport = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect(firstReport["blobs"] as? Int == 4)
        #expect(firstReport["reusedBlobs"] as? Int == 0)

        #expect(try await Attach.run(["import", "--new-note", "More"] + photos.suffix(2), store: store).exitCode == 0)
        let second = try await Attach.run(["backup", backup], store: store)
        #expect(second.exitCode == 0)
        #expect(second.stdout.contains("6 originals") && second.stdout.contains("4 already there"), "\(second.stdout)")

        let restored = directory.appending("restored")
        let restore = try await Attach.run(["restore", backup, "--store", restored.path(percentEncoded: false)], store: nil)
        #expect(restore.exitCode == 0, "\(restore.stderr)")
        #expect(restore.stdout.hasPrefix("restored 2 notes, 6 attachments, 6 originals"), "\(restore.stdout)")
        let verify = try await Attach.run(["verify"], store: restored)
        #expect(verify.exitCode == 0 && verify.stdout.contains("6 attachments checked"), "\(verify.stdout)")
    }

    @Test("a backup into a folder holding something else exits 1 and says what to do")
    func backupIntoOccupiedFolderIsRefused() async throws {
        let directory = try TemporaryDirectory("backup-cli-refused")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let occupied = directory.appending("documents")
        try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: occupied.appending(path: "letter.txt"))
        let outcome = try await Attach.run(["backup", occupied.path(percentEncoded: false)], store: store)
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains("holds something other than a backup"), "\(outcome.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied.path(percentEncoded: false)) == ["letter.txt"])
    }
}
