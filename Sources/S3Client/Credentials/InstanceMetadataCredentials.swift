import Foundation

/// Credentials of the EC2 instance's role, from the instance metadata service with IMDSv2:
/// a session token first (`PUT /latest/api/token`), then the role's name and its credentials.
/// IMDSv1 (requests without a token) is not used. The endpoint is
/// `AWS_EC2_METADATA_SERVICE_ENDPOINT`, else `http://169.254.169.254`; each request gives up
/// after 2 seconds so that a machine outside EC2 learns it quickly.
struct InstanceMetadataCredentials: CredentialProvider {
    /// How long a metadata session token lives, in seconds (the maximum, six hours).
    static let tokenLifetime = 21_600
    static let credentialsPath = "/latest/meta-data/iam/security-credentials/"

    let endpoint: String
    let http: CredentialHTTP

    var name: String { "the EC2 instance metadata service at \(endpoint)" }

    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when the endpoint
    ///   variable is not an http(s) URL.
    init(environment: [String: String], http: CredentialHTTP) throws(S3ClientError) {
        let endpoint = environment.nonEmpty("AWS_EC2_METADATA_SERVICE_ENDPOINT") ?? "http://169.254.169.254"
        guard let components = URLComponents(string: endpoint), components.host?.isEmpty == false,
              ["http", "https"].contains(components.scheme?.lowercased() ?? "") else {
            throw .credentialsUnavailable(source: "AWS_EC2_METADATA_SERVICE_ENDPOINT", reason: "\(endpoint) is not an http(s) URL")
        }
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.http = http
    }

    func fetch() async throws(S3ClientError) -> S3Credentials {
        let tokenAnswer = try await http.send(
            .PUT, endpoint + "/latest/api/token", headers: [("X-aws-ec2-metadata-token-ttl-seconds", "\(Self.tokenLifetime)")],
            timeout: .seconds(2), source: name)
        guard tokenAnswer.status == 200 else {
            throw .credentialsUnavailable(source: name, reason: "the session token request answered \(tokenAnswer.status)")
        }
        let token = String(decoding: tokenAnswer.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw .credentialsUnavailable(source: name, reason: "the session token is empty") }
        let tokenHeader = [("X-aws-ec2-metadata-token", token)]

        let rolesAnswer = try await http.send(.GET, endpoint + Self.credentialsPath, headers: tokenHeader,
                                              timeout: .seconds(2), source: name)
        guard rolesAnswer.status == 200 else {
            let reason = rolesAnswer.status == 404 ? "the instance has no IAM role" : "the role list answered \(rolesAnswer.status)"
            throw .credentialsUnavailable(source: name, reason: reason)
        }
        let role = String(decoding: rolesAnswer.body, as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard Self.isRoleName(role) else {
            throw .credentialsUnavailable(source: name, reason: "the role list does not start with a role name: \(role.prefix(80))")
        }

        let answer = try await http.send(.GET, endpoint + Self.credentialsPath + role, headers: tokenHeader,
                                         timeout: .seconds(2), source: name)
        guard answer.status == 200 else {
            throw .credentialsUnavailable(source: name, reason: "the credentials of role \(role) answered \(answer.status)")
        }
        return try CredentialDocument.credentials(in: answer.body, source: name)
    }

    /// Whether `text` is an IAM role name (1–64 of letters, digits and `+=,.@_-`, not only dots),
    /// safe to put in a path.
    static func isRoleName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && !text.allSatisfy({ $0 == "." }) && text.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "+=,.@_-".unicodeScalars.contains($0)
        }
    }
}
