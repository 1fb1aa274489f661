import AttachmentStore
import Foundation
import Testing
import TestSupport

/// A store holds people's photos (with their GPS tags): other accounts on the machine must not
/// read them.
@Suite("Store files are private", .timeLimit(.minutes(3)))
struct FilePermissionTests {
    static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path(percentEncoded: false))
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test("a new store's folders are 0700, its catalog 0600, its originals 0400 and cached thumbnails 0600")
    func newStoreIsPrivate() async throws {
        let fixture = try await StoreFixture("permissions")
        let note = try await fixture.store.createNote(title: "private")
        let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("special/orientation-6.jpg"))
        _ = try await fixture.store.thumbnail(for: attachment.id, maxPixelSize: 200)
        let root = fixture.storeURL
        #expect(try Self.mode(root) == 0o700)
        for folder in ["tmp", "blobs"] {
            #expect(try Self.mode(root.appending(path: folder)) == 0o700, "\(folder)")
        }
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else {
            Issue.record("cannot list the store")
            return
        }
        var files = 0
        for case let url as URL in walker {
            let mode = try Self.mode(url)
            let isDirectory = try url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true
            #expect(mode & 0o077 == 0, "\(url.path) is open to others: \(String(mode, radix: 8))")
            if isDirectory { #expect(mode == 0o700, "\(url.path)") } else { files += 1 }
            if url.path.contains("/blobs/sha256/"), !isDirectory { #expect(mode == 0o400, "an original is read-only: \(url.path)") }
            if url.lastPathComponent == "catalog.sqlite" { #expect(mode == 0o600) }
        }
        #expect(files >= 1, "files were checked")
    }

    @Test("an empty folder made into a store becomes 0700")
    func emptyFolderBecomesPrivate() async throws {
        let directory = try TemporaryDirectory("permissions-empty")
        let folder = directory.appending("store")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        _ = try await AttachmentStore.create(at: folder)
        #expect(try Self.mode(folder) == 0o700)
        #expect(try Self.mode(folder.appending(path: "catalog.sqlite")) == 0o600)
    }
}
