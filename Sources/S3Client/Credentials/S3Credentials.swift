import Foundation

/// One set of AWS credentials: an access key, its secret, and for temporary credentials a
/// session token and the instant they stop working.
///
/// The secret and the token never appear in ``description``.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    /// The access key id (`AKIA…` for long-term keys, `ASIA…` for temporary ones; `account:user`
    /// on OpenStack Swift).
    public var accessKeyID: String
    /// The secret access key; used only to derive signing keys.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?
    /// When temporary credentials expire; `nil` for long-term keys.
    public var expiration: Date?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// Whether these credentials can still be used at `date` for a request that may take up to
    /// `margin`: long-term keys always can; temporary ones until `margin` before they expire.
    public func isUsable(at date: Date, margin: Duration = .seconds(300)) -> Bool {
        guard let expiration else { return true }
        let (seconds, attoseconds) = margin.components
        return expiration.timeIntervalSince(date) > Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The access key id, whether there is a session token, and the expiry; never a secret.
    public var description: String {
        var text = "access key \(accessKeyID)"
        if sessionToken != nil { text += " with a session token" }
        if let expiration { text += ", expiring \(expiration.formatted(.iso8601))" }
        return text
    }
}
