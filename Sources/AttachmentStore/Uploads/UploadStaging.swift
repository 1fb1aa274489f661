import Foundation

/// Where a store keeps its resumable uploads while their bytes arrive, and the one writer each
/// may have at a time.
///
/// Two homes, chosen by where the store keeps its originals:
/// - ``FolderUploadStaging``: the store folder's `uploads/` (a store whose originals are local
///   files or catalog rows, served by one server);
/// - ``SharedUploadStaging``: the catalog and the object store (a store whose originals live in
///   an object store, which several servers may share): an upload begun on one server continues
///   on any other.
///
/// The store's resumable-upload calls (``AttachmentStore/createUpload(for:filename:length:metadata:attachmentMetadata:lifetime:wholeFile:)``
/// and the rest) hold the protocol's rules — offsets, checksums, finishing once — and talk to
/// this protocol only.
protocol UploadStaging: Sendable {
    /// Records a new upload holding no bytes yet.
    func create(_ id: UploadID, description: UploadDescription) async throws
    /// Where an upload stands, or `nil` when there is no such upload.
    func progress(of id: UploadID) async throws -> UploadProgress?
    /// Takes the upload's writer lock without waiting, for the request `holder` stands for (when
    /// it receives bytes; a holder on another server watches for ``requestHandover(_:)``).
    func lock(_ id: UploadID, holder: UploadHolders.Holder?) async throws -> UploadLock
    /// Asks a writer that another process holds to stop if its bytes stopped arriving (see
    /// ``UploadHolders``); a home no other process writes does nothing.
    func requestHandover(_ id: UploadID) async throws
    /// Removes an upload that has nothing left to write (a finished one), description and all.
    func removeFinished(_ id: UploadID) async throws
    /// `gc`'s part: removes uploads abandoned past their expiry (and leftovers of a crash while
    /// one was created), never one a writer holds; how many went, and their bytes.
    func collectExpired(now: Date, dryRun: Bool) async throws -> (uploads: Int, bytes: Int64)
}

/// Where an upload stands.
struct UploadProgress: Sendable {
    /// What it is for.
    var description: UploadDescription
    /// The bytes held so far.
    var offset: Int64
    /// When it last received bytes, if it did.
    var lastActivity: Date?
    /// Whether it already became its attachment.
    var finished: Bool

    /// The upload as the store's callers see it.
    func upload(_ id: UploadID) -> ResumableUpload {
        description.upload(id, offset: offset, lastActivity: lastActivity, finished: finished)
    }
}

/// What became of an attempt to take an upload's writer lock.
enum UploadLock: Sendable {
    /// Taken; the writer releases it.
    case locked(any UploadWriter)
    /// Another request (here or on another server) holds it.
    case busy
    /// The upload has nothing left to write: it finished, was cancelled or collected.
    case gone
}

/// The one writer of an upload, holding its lock until ``release()``.
protocol UploadWriter: Sendable {
    /// The bytes held now.
    func offset() async throws -> Int64
    /// Receives one request's bytes, which continue the upload at `start` (its offset), and makes
    /// what counts of them durable (see ``UploadBytesReceiver``); returns how many count, or
    /// throws after keeping what counts of a request cut off.
    func append<Bytes: AsyncSequence>(_ bytes: Bytes, at start: Int64, length: Int64, checksum: UploadChecksum?) async throws -> Int64
        where Bytes.Element: DataProtocol
    /// A local file holding every byte of the complete upload, for the ingest that adds the
    /// attachment; ``AssembledUpload/discard()`` drops it afterwards.
    func assembled() async throws -> AssembledUpload
    /// Records that the upload became its attachment and drops its bytes; its description stays,
    /// so asking again answers with the attachment, until it expires.
    func finish() async throws
    /// Removes the upload, bytes and description (tus termination).
    func remove() async throws
    /// Releases the lock; never throws (a lock it cannot release runs out on its own).
    func release() async
}

/// A complete upload's bytes as one local file.
struct AssembledUpload: Sendable {
    /// The file's path.
    var path: String
    /// Drops the file, when it is a copy made for the ingest; a failure is logged.
    var discard: @Sendable () async -> Void
}
