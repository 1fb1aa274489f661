import Crypto

/// The SHA-256 of a blob's bytes, which is also its name on disk.
///
/// Two attachments with the same bytes share one blob: the hash is the content's address.
public struct BlobHash: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// 64 lowercase hexadecimal characters.
    public let rawValue: String

    /// Accepts exactly 64 lowercase hexadecimal characters; anything else is `nil`.
    public init?(rawValue: String) {
        guard rawValue.utf8.count == 64,
              rawValue.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        self.rawValue = rawValue
    }

    /// A hash read from the catalog's `table.column` in the row `row`: checked like any other,
    /// since a catalog or a backup may have been written around the schema's own check.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` naming the row and the value,
    ///   so a malformed hash never becomes a path.
    init(catalog value: String, table: String, column: String, row: String) throws(AttachmentStore.Error) {
        guard let hash = BlobHash(rawValue: value) else {
            throw .damagedCatalogRow(.init(table: table, column: column, row: row, value: value))
        }
        self = hash
    }

    /// The hash of a finished SHA-256 computation.
    init(digest: SHA256.Digest) {
        self.rawValue = digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    public var description: String { rawValue }

    /// The first 12 characters, enough to tell blobs apart in a listing.
    public var short: String { String(rawValue.prefix(12)) }

    public static func < (lhs: BlobHash, rhs: BlobHash) -> Bool { lhs.rawValue < rhs.rawValue }
}
