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
    /// No configured peer could provide the blob.
    case blobUnavailable(hash: BlobHash, reasons: [String])

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
        case .blobUnavailable(let hash, let reasons):
            return "blob \(hash) could not be fetched: "
                + (reasons.isEmpty ? "no peer is configured" : reasons.map { PeerText.escaped($0, limit: 600, markup: false) }.joined(separator: "; "))
        }
    }
}
