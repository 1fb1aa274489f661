import Foundation
import GRDB

/// A store made by an earlier release, kept in `Tests/Fixtures/upgrade/store-RELEASE` (made by
/// `scripts/make-upgrade-fixture.sh`), with what it holds in `store-RELEASE.json`.
public struct UpgradeFixture: Sendable {
    /// A note as `attach note list --json` printed it.
    public struct Note: Decodable, Sendable {
        public var id: String
        public var title: String
        public var body: String
    }

    /// An attachment as `attach list --json` printed it.
    public struct Attachment: Decodable, Sendable {
        public var id: String
        public var noteID: String
        public var position: Int
        public var filename: String
        public var mediaType: String
        public var blobHash: String
        public var byteCount: Int64
    }

    /// What the store held when it was made.
    public struct Contents: Decodable, Sendable {
        public var release: String
        public var notes: [Note]
        public var attachments: [Attachment]
        public var deletedAttachment: String
    }

    /// The release that made it.
    public let release: String
    /// The fixture's folder in the repository (never written).
    public let folder: URL
    /// What it holds.
    public let contents: Contents

    /// Every fixture in the repository, oldest release first.
    public static func all() throws -> [UpgradeFixture] {
        let root = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../Fixtures/upgrade").standardizedFileURL
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path(percentEncoded: false))
            .filter { $0.hasPrefix("store-") && !$0.hasSuffix(".json") }
            .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        return try names.map { name in
            let folder = root.appending(path: name, directoryHint: .isDirectory)
            let contents = try JSONDecoder().decode(Contents.self, from: Data(contentsOf: root.appending(path: name + ".json")))
            return UpgradeFixture(release: contents.release, folder: folder, contents: contents)
        }
    }

    /// A copy of the store in `directory`, as a restore from a backup would leave it. Git keeps
    /// no empty folder, so the copy's empty `tmp/` is made here.
    public func copy(into directory: TemporaryDirectory) throws -> URL {
        let store = directory.appending("store-\(release)")
        try FileManager.default.copyItem(at: folder, to: store)
        try FileManager.default.createDirectory(at: store.appending(path: "tmp"), withIntermediateDirectories: true)
        return store
    }

    /// Makes the SQLite catalog of the store at `store` look migrated by `release`, a release
    /// after this code: one more migration id than this code knows, and that release recorded.
    public static func pretendMigratedByLaterRelease(_ store: URL, release: String, migration: String) throws {
        let queue = try DatabaseQueue(path: store.appending(path: "catalog.sqlite").path(percentEncoded: false))
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration])
            try db.execute(sql: "INSERT INTO storeSetting (key, value) VALUES ('schemaRelease', ?) "
                               + "ON CONFLICT (key) DO UPDATE SET value = excluded.value", arguments: [release])
        }
        try queue.close()
    }

    /// The change feed of the SQLite catalog of the store at `store`, read without migrating it:
    /// each row's `seq`, entity and id, in order.
    public static func changeFeed(_ store: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: store.appending(path: "catalog.sqlite").path(percentEncoded: false))
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, entity, id FROM change ORDER BY seq").map { row in
                "\(row["seq"] as Int64) \(row["entity"] as String) \(row["id"] as String)"
            }
        }
    }

    /// The release the SQLite catalog of the store at `store` says last migrated it.
    public static func recordedRelease(_ store: URL) throws -> String? {
        let queue = try DatabaseQueue(path: store.appending(path: "catalog.sqlite").path(percentEncoded: false))
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM storeSetting WHERE key = 'schemaRelease'") }
    }
}
