import Foundation
import Testing
import TestSupport

/// Paths that point at the wrong kind of thing: one error line naming the path and the cause,
/// a non-zero exit, and a store exactly as it was.
@Suite("A wrong path leaves the store as it was", .timeLimit(.minutes(2)))
struct WrongPathTests {
    /// The store's files and records, plus what `attach list --json` prints.
    static func state(_ store: URL) async throws -> [String] {
        let listed = try await Attach.run(["list", "--json"], store: store)
        guard listed.exitCode == 0 else { throw Attach.Failed(outcome: listed) }
        return try await Attach.snapshot(store) + [listed.stdout]
    }

    @Test("a missing file given to import --note is named with its cause and nothing is stored")
    func missingImportFileIsReported() async throws {
        let directory = try TemporaryDirectory("missing")
        let (store, note) = try await InputErrorTests.seededStore(directory)
        let missing = directory.appending("no-such-photo.jpg").path(percentEncoded: false)
        let before = try await Self.state(store)
        let outcome = try await Attach.run(["import", "--note", note, missing], store: store)
        #expect(outcome.exitCode == 1)
        let errorLines = outcome.stderr.split(separator: "\n")
        #expect(errorLines.count == 1, "\(outcome.stderr)")
        #expect(errorLines.first?.contains(missing) == true, "\(outcome.stderr)")
        #expect(errorLines.first?.contains("No such file or directory") == true, "\(outcome.stderr)")
        #expect(try await Self.state(store) == before)
    }

    @Test("a folder given to thumb -o where a file is expected is named with its cause and left alone")
    func folderAsThumbnailOutputIsReported() async throws {
        let directory = try TemporaryDirectory("folderout")
        let (store, _) = try await InputErrorTests.seededStore(directory)
        let folder = directory.appending("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: folder.appending(path: "notes.txt"))
        let listed = try await Attach.run(["list", "--json"], store: store)
        let attachments = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        let attachment = try #require(attachments?.first?["id"] as? String)
        let before = try await Self.state(store)
        let outside = Files.tree(directory.url).filter { !$0.hasPrefix("store/") }

        let outcome = try await Attach.run(["thumb", attachment, "-o", folder.path(percentEncoded: false)], store: store)
        #expect(outcome.exitCode == 1)
        #expect(outcome.stdout.isEmpty, "\(outcome.stdout)")
        let errorLines = outcome.stderr.split(separator: "\n")
        #expect(errorLines.count == 1, "\(outcome.stderr)")
        #expect(errorLines.first?.contains(folder.path(percentEncoded: false)) == true, "\(outcome.stderr)")
        #expect(errorLines.first?.contains("Is a directory") == true, "\(outcome.stderr)")
        #expect(try await Self.state(store) == before)
        #expect(Files.tree(directory.url).filter { !$0.hasPrefix("store/") } == outside, "no stray temp file beside the folder")
    }
}
