/// What a set of credentials may do on a server that has a token.
///
/// The full token (`--token`) grants ``full``; a sync token (`--sync-token`) grants only
/// ``syncRead``, so a peer holding it can pull records and bytes but cannot browse, write or
/// read metrics.
public enum AccessScope: String, Sendable, Codable {
    /// Everything: the web UI, the JSON API, `/metrics`, `/openapi.yaml` and the peer protocol.
    case full
    /// The peer protocol only: `GET /sync/changes`, `GET /sync/status`,
    /// `GET|HEAD /blobs/sha256/{hash}` and `GET /blobs/sha256/{hash}/thumbnail` (a thumbnail
    /// by content hash: no more than the bytes this scope reads anyway).
    case syncRead = "sync-read"

    /// Whether credentials of this scope may use a route that needs `required`.
    func covers(_ required: AccessScope) -> Bool {
        self == .full || self == required
    }
}

/// Who a request was authenticated as: the scope its credentials grant and how it proved them.
public struct Principal: Sendable {
    /// How a request proved who it is.
    public enum Proof: Sendable {
        /// `Authorization: Bearer …`.
        case bearer
        /// The login session cookie.
        case session
    }

    /// What the credentials allow.
    public let scope: AccessScope
    /// How they were presented.
    public let proof: Proof
}
