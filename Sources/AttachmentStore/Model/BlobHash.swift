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

    /// Wraps a hash read from the catalog, whose schema already checks its form.
    init(trusted rawValue: String) { self.rawValue = rawValue }

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
