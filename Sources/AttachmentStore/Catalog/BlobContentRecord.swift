import CatalogSQL
import Foundation

/// The `blobContent` table: a blob's bytes, for stores whose placement is ``BlobPlacement/catalog``.
enum BlobContentRecord {
    /// The bytes of `hash`, or `nil` when the catalog holds none.
    static func bytes(of hash: BlobHash, in db: any SQLTransaction) throws -> Data? {
        try db.queryOne("SELECT bytes FROM blobContent WHERE hash = ?", [.text(hash.rawValue)])?.data("bytes")
    }

    /// Whether the catalog holds the bytes of `hash`.
    static func exists(_ hash: BlobHash, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT EXISTS (SELECT 1 FROM blobContent WHERE hash = ?) AS found", [.text(hash.rawValue)])?.bool("found") ?? false
    }

    /// The columns a row is written with, and each one's value.
    static let columns = SQLColumns<(hash: BlobHash, bytes: Data)>(table: "blobContent", key: ["hash"], [
        .init("hash") { .text($0.hash.rawValue) },
        .init("bytes") { .blob($0.bytes) },
    ])

    /// Stores the bytes of `hash`.
    static func insert(_ hash: BlobHash, bytes: Data, in db: any SQLTransaction) throws {
        try db.execute(columns.insert, columns.arguments(of: (hash, bytes)))
    }
}
