import Foundation

/// A durable home for original bytes outside the store directory — an object store such as an
/// S3 bucket — with one object per blob, named by its content hash.
///
/// A store configured with one (``AttachmentStore/Configuration/originals``) keeps only its
/// catalog, its staging folder and derived caches on local disk. The store decides when to
/// upload, read and delete; implementations only move bytes, and must be safe to call from
/// any task at once. Several stores (several servers) may share one object store: the
/// catalog, not the object store, decides what is referenced.
public protocol BlobObjectStore: Sendable {
    /// Where the objects live, for messages and for recognising the same object store when a
    /// store is opened again (for example `s3://bucket/prefix at http://127.0.0.1:9000`). Two
    /// values that would read and write the same objects must have the same `location`.
    var location: String { get }

    /// Uploads the file at `path` as the object of `hash` and confirms that what was stored
    /// hashes to `hash`. Uploading content that is already there is harmless.
    /// - Throws: ``BlobObjectStoreError`` when the upload fails or the bytes sent did not hash
    ///   to `hash`; nothing should then reference the object.
    func upload(fileAt path: String, as hash: BlobHash, byteCount: Int64) async throws

    /// Writes the object of `hash` into a new file at `path` (fsynced), or throws.
    /// - Throws: ``BlobObjectStoreError/missing(_:)`` when there is no such object, or another
    ///   ``BlobObjectStoreError``; a partial file is removed.
    func download(_ hash: BlobHash, toFile path: String) async throws

    /// The size of the object of `hash`, or `nil` when there is none.
    func size(of hash: BlobHash) async throws -> Int64?

    /// Deletes the object of `hash`; deleting one that is not there succeeds.
    func delete(_ hash: BlobHash) async throws

    /// Every blob object, in no particular order, for garbage collection and `verify`.
    func objects() -> AsyncThrowingStream<BlobObject, any Swift.Error>
}

/// One object of a ``BlobObjectStore``, as a listing reports it.
public struct BlobObject: Sendable, Equatable {
    /// The content hash the object is named by.
    public let hash: BlobHash
    /// Its size in bytes.
    public let byteCount: Int64
    /// When it was last written, when the object store says.
    public let lastModified: Date?

    /// An object description.
    public init(hash: BlobHash, byteCount: Int64, lastModified: Date?) {
        self.hash = hash
        self.byteCount = byteCount
        self.lastModified = lastModified
    }
}

/// What a ``BlobObjectStore`` operation can fail with.
public enum BlobObjectStoreError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// The object store has no object for this hash.
    case missing(BlobHash)
    /// The bytes stored (or received) do not hash to the name they were stored under.
    case corrupt(BlobHash, reason: String)
    /// The object store could not be reached or refused the operation; `cause` is the failure
    /// as it was thrown.
    case unavailable(operation: String, location: String, cause: BlobObjectStoreFailure)

    /// What went wrong, in one line a user can act on.
    public var description: String {
        switch self {
        case .missing(let hash):
            "the object store has no object for blob \(hash)"
        case .corrupt(let hash, let reason):
            "the object of blob \(hash) is corrupt: \(reason)"
        case .unavailable(let operation, let location, let cause):
            "cannot \(operation) at \(location): \(cause)"
        }
    }
}

/// Why an object store could not do what was asked: the failure kept as it was thrown (a local
/// directory's ``SystemError`` with its `errno`, the S3 client's error, a transport error), so
/// a caller decides by its type, never by its words. Two failures are equal when they read the
/// same.
public struct BlobObjectStoreFailure: Sendable, Equatable, CustomStringConvertible {
    /// The failure as thrown.
    public let error: any Swift.Error & Sendable

    /// The failure `error`.
    public init(_ error: any Swift.Error & Sendable) {
        self.error = error
    }

    /// What failed, in the failure's own words (a system call's reason without its call name
    /// repeated).
    public var description: String {
        if let system = error as? SystemError { return system.reason }
        return String(describing: error)
    }

    /// Whether both read the same.
    public static func == (lhs: BlobObjectStoreFailure, rhs: BlobObjectStoreFailure) -> Bool {
        lhs.description == rhs.description
    }
}
