import Foundation
import Testing
import TestSupport

/// `attach import` commits files in batches (issue 13: group commit). The flushes it makes are
/// counted from the kernel's side with `strace` (installed by `make test`).
@Suite("Group commit of imports", .timeLimit(.minutes(3)))
struct GroupCommitTests {
    /// The flush calls (`fsync`, `fdatasync`, `syncfs`) a traced `attach ARGUMENTS` made, by name.
    static func flushes(_ arguments: [String], store: URL, directory: TemporaryDirectory) async throws -> (ChildProcess.Outcome, [String: Int]) {
        let summary = directory.appending("strace.txt").path(percentEncoded: false)
        let outcome = try await Attach.run(
            through: ["/usr/bin/strace", "-f", "-c", "-o", summary, "-e", "trace=fsync,fdatasync,syncfs"], arguments, store: store)
        var counts: [String: Int] = [:]
        for line in try String(contentsOfFile: summary, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "% time seconds usecs/call calls [errors] syscall": the name is last, calls fourth.
            guard fields.count >= 5, let name = fields.last, ["fsync", "fdatasync", "syncfs"].contains(name),
                  let calls = Int(fields[3]) else { continue }
            counts[String(name)] = calls
        }
        return (outcome, counts)
    }

    @Test("importing 40 photos flushes a few times per batch of 16, not three times per photo, and loses nothing")
    func importFlushesPerBatch() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is missing: run `make test` (scripts/install-test-deps.sh)")
        let directory = try TemporaryDirectory("groupcommit")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photos = try Corpus.files(in: "fifty").prefix(40).map { $0.path(percentEncoded: false) }
        let (outcome, counts) = try await Self.flushes(["import", "--json", "--no-thumbnails", "--new-note", "forty"] + photos,
                                                      store: store, directory: directory)
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        #expect(Attach.importedLines(outcome.stdout).count == 40)
        // Three batches (16 + 16 + 8): per batch one syncfs for the copies, one for their renames
        // and the catalog's commit; plus the note's own commit. The file-at-a-time import made 120.
        let total = counts.values.reduce(0, +)
        #expect(total <= 16, "flushes: \(counts)")
        #expect(counts["syncfs"] == 6, "flushes: \(counts)")
        // Each batch's catalog commit reaches the disk: SQLite flushes the write-ahead log.
        #expect((counts["fdatasync"] ?? 0) >= 3, "flushes: \(counts)")
        let verify = try await Attach.run(["verify"], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test("one photo alone is still made durable by its own fsyncs, without flushing the filesystem")
    func singleImportFlushesItsOwnFiles() async throws {
        let directory = try TemporaryDirectory("singlecommit")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photo = try Corpus.file("special/seed-3.7mb.jpg").path(percentEncoded: false)
        let (outcome, counts) = try await Self.flushes(["import", "--no-thumbnails", "--new-note", "one", photo],
                                                      store: store, directory: directory)
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        #expect(counts["syncfs"] == nil, "flushes: \(counts)")
        #expect((counts["fsync"] ?? 0) >= 2, "the copy and its directory: \(counts)")
    }
}
