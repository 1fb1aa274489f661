/// What ``AttachmentStore/backup(to:progress:)`` (or ``AttachmentStore/restore(from:to:progress:)``)
/// did: the originals the snapshot references, and how each reached the destination.
public struct BackupReport: Sendable, Equatable, Codable {
    /// The destination folder.
    public var destination: String
    /// Notes and attachments in the snapshot.
    public var notes = 0
    /// Attachments in the snapshot.
    public var attachments = 0
    /// Originals the snapshot references (kept as files in the destination).
    public var blobs = 0
    /// Their bytes.
    public var blobBytes: Int64 = 0
    /// Originals copied byte by byte (a new one, on another filesystem or from an object store).
    public var copiedBlobs = 0
    /// Bytes copied.
    public var copiedBytes: Int64 = 0
    /// Originals hard-linked (a new one, on the same filesystem): no bytes written.
    public var linkedBlobs = 0
    /// Bytes linked.
    public var linkedBytes: Int64 = 0
    /// Originals an earlier backup into the destination already holds.
    public var reusedBlobs = 0
    /// Bytes reused.
    public var reusedBytes: Int64 = 0
    /// Originals in the destination the snapshot no longer references, removed.
    public var removedBlobs = 0
    /// Size of the catalog snapshot.
    public var catalogBytes: Int64 = 0
    /// Snapshots taken: more than one when `gc` removed an original while it was being copied.
    public var snapshots = 0

    /// An empty report for `destination`.
    public init(destination: String) {
        self.destination = destination
    }
}

/// How far a backup has come: originals handled so far of those the snapshot references.
public struct BackupProgress: Sendable, Equatable {
    /// Originals handled.
    public var blobsDone: Int
    /// Originals to handle.
    public var blobs: Int
    /// Bytes of the originals handled.
    public var bytesDone: Int64
    /// Bytes of all the originals.
    public var bytes: Int64
}
