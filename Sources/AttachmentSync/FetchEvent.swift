import AttachmentStore

/// What happens to a blob fetch, for progress bars and placeholders.
public enum FetchEvent: Sendable, Equatable {
    /// Bytes received so far (a resumed transfer starts above zero) of the total.
    case progress(received: Int64, total: Int64)
    /// The bytes arrived, matched their hash, and are stored.
    case completed
    /// The fetch failed; nothing partial counts.
    case failed(SyncError)
}
