/// What `gc` removed (or, in a dry run, would remove).
public struct GarbageReport: Sendable, Codable, Equatable {
    /// Whether this was a dry run that removed nothing.
    public var dryRun: Bool
    /// Blobs no attachment or image key references any more.
    public var blobs = 0
    /// Their bytes.
    public var blobBytes: Int64 = 0
    /// Blob files with no catalog row (a crash between rename and commit).
    public var orphanFiles = 0
    /// Their bytes.
    public var orphanBytes: Int64 = 0
    /// Temporary files of ingests that died.
    public var temporaryFiles = 0
    /// Their bytes.
    public var temporaryBytes: Int64 = 0
    /// Resumable uploads past their expiry (abandoned, or finished long enough ago).
    public var expiredUploads = 0
    /// The bytes they had received.
    public var expiredUploadBytes: Int64 = 0
    /// Notes purged from the trash (with their attachments) because they outlived the trash's
    /// retention; in a dry run, those that would be.
    public var trashedNotesPurged = 0
    /// Attachments purged from the trash on their own, likewise.
    public var trashedAttachmentsPurged = 0
    /// Garbage left in place because it is younger than the grace period.
    public var keptInGracePeriod = 0

    /// Everything removed, in bytes.
    public var totalBytes: Int64 { blobBytes + orphanBytes + temporaryBytes + expiredUploadBytes }
}
