/// Brings the bytes of remote blobs to this store; implemented by the sync module over HTTP.
///
/// The store calls it when someone asks for the thumbnail or the original of an attachment
/// whose bytes are on a peer. Implementations coalesce concurrent requests for one blob and
/// must be safe to call from any task.
public protocol RemoteBlobSource: Sendable {
    /// Makes the bytes of `hash` present in `store`, or throws why they could not be fetched.
    func fetch(_ hash: BlobHash, byteCount: Int64, into store: AttachmentStore) async throws

    /// Names a source (a peer) that holds the bytes of `hash`, with `byteCount` bytes, right
    /// now, or `nil` when none does. The storage budget evicts an original only when this
    /// names someone, so an implementation must answer only for a holder that gave back
    /// `sample` (bytes of the blob at an offset the store chose at random) when asked for them.
    func holder(of hash: BlobHash, byteCount: Int64, sample: BlobSample) async -> String?
}

extension RemoteBlobSource {
    /// No holder: a source that cannot tell never lets the budget evict anything.
    public func holder(of hash: BlobHash, byteCount: Int64, sample: BlobSample) async -> String? { nil }
}
