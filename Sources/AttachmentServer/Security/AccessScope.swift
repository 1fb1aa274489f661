/// What a set of credentials may do on a server that has a token.
///
/// The full token (`--token`) grants ``full``; a sync token (`--sync-token`) grants only
/// ``syncRead``, so a peer holding it can pull records and bytes but cannot browse, write or
/// read metrics; a push token (`--push-token`) grants ``syncPush``: a device's own sync, both ways.
public enum AccessScope: String, Sendable, Codable {
    /// Everything: the web UI, the JSON API, `/metrics`, `/openapi.yaml` and the peer protocol.
    case full
    /// The peer protocol only: `GET /sync/changes`, `GET /sync/status`,
    /// `GET|HEAD /blobs/sha256/{hash}` and `GET /blobs/sha256/{hash}/thumbnail` (a thumbnail
    /// by content hash: no more than the bytes this scope reads anyway).
    case syncRead = "sync-read"
    /// The peer protocol both ways, for devices that sync with the server (`--push-token`):
    /// everything ``syncRead`` allows, and pushing changes (`POST /sync/changes`) and the bytes
    /// of originals (`HEAD|PATCH /sync/blobs/{hash}`). It cannot browse, use the API or log in.
    case syncPush = "sync-push"

    /// Whether credentials of this scope may use a route that needs `required`.
    func covers(_ required: AccessScope) -> Bool {
        switch self {
        case .full: true
        case .syncPush: required == .syncPush || required == .syncRead
        case .syncRead: required == .syncRead
        }
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
