import CatalogSQL
import Foundation

/// A row of the `imageEntry` table: the key-value image store's key → blob mapping.
struct ImageEntryRecord: Sendable {
    var key: String
    var blobHash: String
    var mediaType: String
    var updatedAt: Date

    init(key: String, blobHash: String, mediaType: String, updatedAt: Date) {
        self.key = key
        self.blobHash = blobHash
        self.mediaType = mediaType
        self.updatedAt = updatedAt
    }

    /// ``blobHash`` as a ``BlobHash``, the only way it becomes a path.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` for a malformed one.
    var validatedHash: BlobHash {
        get throws(AttachmentStore.Error) { try BlobHash(catalog: blobHash, table: "imageEntry", column: "blobHash", row: key) }
    }

    init(row: SQLRow) throws {
        key = try row.requiredString("key")
        blobHash = try row.requiredString("blobHash")
        mediaType = try row.requiredString("mediaType")
        updatedAt = try row.requiredDate("updatedAt")
    }

    /// The columns a row is written with, and each one's value.
    static let columns = SQLColumns<ImageEntryRecord>(table: "imageEntry", key: ["key"], [
        .init("key") { .text($0.key) },
        .init("blobHash") { .text($0.blobHash) },
        .init("mediaType") { .text($0.mediaType) },
        .init("updatedAt") { .date($0.updatedAt) },
    ])

    /// Inserts the entry, or points an existing key at new bytes.
    func save(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.upsert, Self.columns.arguments(of: self))
    }

    /// The entry of `key`, if any.
    static func fetch(_ key: String, in db: any SQLTransaction) throws -> ImageEntryRecord? {
        try db.queryOne("SELECT * FROM imageEntry WHERE key = ?", [.text(key)]).map(ImageEntryRecord.init(row:))
    }

    /// Every entry.
    static func all(in db: any SQLTransaction) throws -> [ImageEntryRecord] {
        try db.query("SELECT * FROM imageEntry", []).map(ImageEntryRecord.init(row:))
    }

    /// Deletes the entry of `key`.
    static func delete(_ key: String, in db: any SQLTransaction) throws {
        try db.execute("DELETE FROM imageEntry WHERE key = ?", [.text(key)])
    }
}
