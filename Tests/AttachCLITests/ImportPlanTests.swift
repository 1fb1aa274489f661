@testable import attach
import AttachmentStore
import Foundation
import Testing
import TestSupport

/// What `attach import` plans before it stores anything (``ImportPlan``): the files a list of
/// inputs expands to, in which order, with which sizes, and which inputs it cannot read; how a
/// failure is worded and what exit code it carries; and the JSON lines of `import --json`
/// and the summary line of `backup` and `restore`. Files are made in a temporary folder; no
/// store is opened.
@Suite("import planning and report lines")
struct ImportPlanTests {
    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test("a folder expands to every regular file beneath it, sorted by path, hidden entries skipped")
    func folderExpansion() throws {
        let directory = try TemporaryDirectory("plan-folder")
        let folder = directory.appending("photos")
        for name in ["b.jpg", "a.jpg", "sub/c.jpg", "sub/deeper/d.jpg", ".hidden.jpg", ".cache/e.jpg", "sub/.f.jpg"] {
            try Self.write("x", to: folder.appending(path: name))
        }
        let plan = ImportPlan(inputs: [folder.path(percentEncoded: false)])
        let root = folder.resolvingSymlinksInPath().path(percentEncoded: false)
        let relative = plan.files.map { String($0.path.dropFirst(root.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
        #expect(relative == ["a.jpg", "b.jpg", "sub/c.jpg", "sub/deeper/d.jpg"])
        #expect(plan.failures.isEmpty)
    }

    @Test("files are taken as given and in the order given, a named hidden file included, folders expanded in place")
    func orderOfInputs() throws {
        let directory = try TemporaryDirectory("plan-order")
        let z = directory.appending("z.jpg"), hidden = directory.appending(".named.jpg"), folder = directory.appending("f")
        try Self.write("zz", to: z)
        try Self.write("h", to: hidden)
        try Self.write("1", to: folder.appending(path: "1.jpg"))
        try Self.write("2", to: folder.appending(path: "2.jpg"))
        let plan = ImportPlan(inputs: [z.path(percentEncoded: false), folder.path(percentEncoded: false), hidden.path(percentEncoded: false)])
        #expect(plan.files.map { URL(filePath: $0.path).lastPathComponent } == ["z.jpg", "1.jpg", "2.jpg", ".named.jpg"])
        #expect(plan.files.first?.path == z.path(percentEncoded: false), "a file keeps the path it was given")
    }

    @Test("sizes are each file's bytes, and the total their sum")
    func sizes() throws {
        let directory = try TemporaryDirectory("plan-sizes")
        try Self.write(String(repeating: "a", count: 1000), to: directory.appending("a"))
        try Self.write("", to: directory.appending("empty"))
        try Self.write(String(repeating: "b", count: 24), to: directory.appending("sub/b"))
        let plan = ImportPlan(inputs: [directory.appending("a").path(percentEncoded: false), directory.appending("empty").path(percentEncoded: false),
                                       directory.appending("sub").path(percentEncoded: false)])
        #expect(plan.files.map(\.byteCount) == [1000, 0, 24])
        #expect(plan.totalBytes == 1024)
    }

    @Test("a missing input is a failure naming it, exit 1; the inputs around it are still planned")
    func missingInput() throws {
        let directory = try TemporaryDirectory("plan-missing")
        let kept = directory.appending("kept.jpg")
        try Self.write("k", to: kept)
        let missing = directory.appending("gone.jpg").path(percentEncoded: false)
        let plan = ImportPlan(inputs: [missing, kept.path(percentEncoded: false), missing + "/"])
        #expect(plan.files.map(\.path) == [kept.path(percentEncoded: false)])
        #expect(plan.failures.map(\.file) == [missing, missing + "/"])
        #expect(plan.failures.allSatisfy { $0.exitCode == ExitStatus.inputError && $0.message.contains($0.file) })
    }

    @Test("an empty folder, or one of only hidden files, plans nothing and fails nothing")
    func emptyFolder() throws {
        let directory = try TemporaryDirectory("plan-empty")
        try Self.write("x", to: directory.appending("only/.DS_Store"))
        try FileManager.default.createDirectory(at: directory.appending("none"), withIntermediateDirectories: true)
        let plan = ImportPlan(inputs: [directory.appending("only").path(percentEncoded: false), directory.appending("none").path(percentEncoded: false)])
        #expect(plan.files.isEmpty && plan.failures.isEmpty && plan.totalBytes == 0)
    }

    @Test("a failure's line names the file once, prefixed when the message does not already name it, with the command line's advice")
    func failureMessages() {
        let unnamed = ImportOutcome.Failure(file: "/in/a.jpg", error: .noteNotFound("3f2a"))
        #expect(unnamed.message == "/in/a.jpg: no note 3f2a; `attach note list` shows the notes")
        let named = ImportOutcome.Failure(file: "/dev/null", error: .sourceNotAFile(path: "/dev/null"))
        #expect(named.message == "/dev/null is not a regular file")
    }

    @Test("a failure's exit code is its error's: 1 for bad input, 2 for damage")
    func failureCodes() {
        let hash = BlobHash(rawValue: String(repeating: "c", count: 64))!
        #expect(ImportOutcome.Failure(file: "a", error: .sourceNotAFile(path: "a")).exitCode == 1)
        #expect(ImportOutcome.Failure(file: "a", error: .hashMismatch(expected: hash, actual: hash)).exitCode == 2)
    }

    @Test("each import --json line carries its event and the fields of that event only")
    func jsonEvents() throws {
        func object(_ event: ImportEvent) throws -> [String: Any] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try #require(try JSONSerialization.jsonObject(with: encoder.encode(event)) as? [String: Any])
        }
        let failed = try object(.failed(file: "/in/x.jpg", error: "no note 3f2a"))
        #expect(failed["event"] as? String == "failed" && failed["file"] as? String == "/in/x.jpg" && failed["error"] as? String == "no note 3f2a")
        #expect(Set(failed.keys) == ["event", "file", "error"])
        let summary = try object(.summary(note: NoteID(rawValue: "n-1"), imported: 3, failed: 1, bytes: 4096))
        #expect(Set(summary.keys) == ["event", "note", "imported", "failed", "bytes"])
        #expect(summary["event"] as? String == "summary" && summary["note"] as? String == "n-1")
        #expect(summary["imported"] as? Int == 3 && summary["failed"] as? Int == 1 && summary["bytes"] as? Int == 4096)
        let attachment = StoredAttachment(
            id: AttachmentID(rawValue: "a-1"), noteID: NoteID(rawValue: "n-1"), position: 0,
            blobHash: BlobHash(rawValue: String(repeating: "d", count: 64))!, byteCount: 5, mediaType: "text/plain", filename: "x.txt",
            image: nil, metadata: [:], createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0), state: .present)
        let imported = try object(.imported(file: "/in/x.txt", attachment: attachment))
        #expect(Set(imported.keys) == ["event", "file", "attachment"])
        let fields = try #require(imported["attachment"] as? [String: Any])
        #expect(fields["id"] as? String == "a-1" && fields["blobHash"] as? String == String(repeating: "d", count: 64))
        #expect(fields["state"] as? String == "present" && fields["byteCount"] as? Int == 5)
    }

    @Test("the backup and restore summary counts what the snapshot holds and how each original got there")
    func backupSummary() {
        var report = BackupReport(destination: "/backups/monday")
        report.notes = 2; report.attachments = 5; report.blobs = 4; report.blobBytes = 4_000_000
        report.copiedBlobs = 1; report.copiedBytes = 1_000_000; report.linkedBlobs = 2; report.linkedBytes = 2_500_000
        report.reusedBlobs = 1; report.reusedBytes = 500_000; report.removedBlobs = 3; report.catalogBytes = 40_960
        #expect(BackupCommand.summary(report, verb: "backed up") ==
            "backed up 2 notes, 5 attachments, 4 originals (4.0 MB) into /backups/monday: 1 copied (1.0 MB), "
            + "2 hard-linked (2.5 MB), 1 already there (500 kB), 3 no longer referenced removed; catalog 41 kB")
        #expect(BackupCommand.summary(BackupReport(destination: "/r"), verb: "restored").hasPrefix("restored 0 notes, 0 attachments, 0 originals (0 B) into /r: "))
    }
}
