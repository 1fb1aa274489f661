import Foundation

/// What S3 says about a stored object without sending its bytes.
public struct S3ObjectInfo: Sendable, Equatable, Hashable {
    /// The object's key.
    public let key: String
    /// The object's size in bytes.
    public let size: Int64
    /// The ETag without quotes: the MD5 of the bytes for a single PUT, `md5-of-md5s-N` for a
    /// multipart upload of N parts.
    public let etag: String
    /// When the object was last written, as a listing reports it; `nil` where the answer
    /// carried no date (HEAD answers leave it out here).
    public let lastModified: Date?

    /// An object description.
    public init(key: String, size: Int64, etag: String, lastModified: Date? = nil) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A byte range of an object, as in an HTTP `Range` header.
public enum S3ByteRange: Sendable, Equatable {
    /// Bytes `first` through `last`, both included.
    case bounded(first: Int64, last: Int64)
    /// Bytes from `first` to the end.
    case from(Int64)
    /// The last `count` bytes.
    case suffix(Int64)

    /// The `Range` header value, e.g. `bytes=0-99`.
    public var headerValue: String {
        switch self {
        case .bounded(let first, let last): return "bytes=\(first)-\(last)"
        case .from(let first): return "bytes=\(first)-"
        case .suffix(let count): return "bytes=-\(count)"
        }
    }
}

/// The answer to ``S3Client/getObject(key:range:)``: headers, and the bytes still to read.
public struct S3ObjectDownload: Sendable {
    /// The object's key.
    public let key: String
    /// How many bytes ``body`` delivers (the range's length for a ranged GET), when announced.
    public let contentLength: Int64?
    /// The ETag without quotes, when the server sent one.
    public let etag: String?
    /// The `Content-Range` header of a ranged answer, e.g. `bytes 0-99/4096`.
    public let contentRange: String?
    /// The bytes, chunk by chunk; iterate it once.
    public let body: S3ObjectBody
}
