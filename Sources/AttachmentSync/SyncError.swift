import AttachmentStore

/// Why a sync round or a blob fetch failed, naming the peer involved.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer could not be reached (refused, timed out, cut).
    case peerUnreachable(peer: String, reason: String)
    /// The peer's TLS certificate is signed by no authority this machine trusts (its CA must be
    /// given to the client).
    case peerCertificateUntrusted(peer: String)
    /// The peer answered with an HTTP error.
    case peerRefused(peer: String, status: Int, message: String)
    /// The peer answered something that is not what the protocol says.
    case badResponse(peer: String, reason: String)
    /// The peer served bytes that do not hash to the blob's name; nothing was stored.
    case wrongBytes(peer: String, hash: BlobHash)
    /// This side's store failed (the disk, the catalog) while storing what `peer` sent, or before
    /// any peer was asked (`peer` is then `nil`); the store's error is kept as it was thrown.
    case storeFailed(peer: String?, cause: AttachmentStore.Error)
    /// No configured peer could provide the blob: why each peer tried failed, in order (empty
    /// when no peer is configured).
    case blobUnavailable(hash: BlobHash, failures: [SyncError])

    /// The failures this error stands for: itself, or each peer's for ``blobUnavailable(hash:failures:)``.
    public var peerFailures: [SyncError] {
        if case .blobUnavailable(_, let failures) = self { return failures.flatMap(\.peerFailures) }
        return [self]
    }

    /// One line, safe for a log or a terminal: whatever text came from a peer (its error body,
    /// a decoding detail) is escaped by `PeerText` (no line breaks, no escape sequences, no
    /// bidi overrides).
    public var description: String {
        switch self {
        case .peerUnreachable(let peer, let reason):
            return "peer \(peer) cannot be reached: \(PeerText.escaped(reason, limit: 500, markup: false))"
        case .peerCertificateUntrusted(let peer):
            return "peer \(peer) cannot be reached: its TLS certificate is signed by no authority this machine trusts"
        case .peerRefused(let peer, let status, let message):
            return "peer \(peer) answered \(status)\(message.isEmpty ? "" : ": \(PeerText.escaped(message, limit: 500, markup: false))")"
                + (status == 401 ? " (it does not accept the token this store gave it)" : "")
        case .badResponse(let peer, let reason):
            return "peer \(PeerText.escaped(peer, limit: 200, markup: false)) sent a response this version does not understand: \(PeerText.escaped(reason, limit: 500, markup: false))"
        case .wrongBytes(let peer, let hash):
            return "peer \(peer) served wrong bytes for blob \(hash); they were rejected and nothing was stored"
        case .storeFailed(let peer?, let cause):
            return "what peer \(peer) sent could not be stored: \(cause)"
        case .storeFailed(nil, let cause):
            return "the store failed: \(cause)"
        case .blobUnavailable(let hash, let failures):
            return "blob \(hash) could not be fetched: "
                + (failures.isEmpty ? "no peer is configured" : failures.map(\.description).joined(separator: "; "))
        }
    }
}
