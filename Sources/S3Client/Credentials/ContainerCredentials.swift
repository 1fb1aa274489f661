import Foundation

/// Credentials from the container credentials endpoint: ECS tasks
/// (`AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`, on `http://169.254.170.2`) and EKS Pod Identity
/// or other agents (`AWS_CONTAINER_CREDENTIALS_FULL_URI`), with the authorization token from
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read on every fetch) or
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN`.
///
/// A full URI must be `https`, or `http` to a loopback address or the ECS/EKS link-local
/// addresses, as the AWS SDKs require: credentials are never fetched in the clear from
/// anywhere else.
struct ContainerCredentials: CredentialProvider {
    /// The hosts a plain-http full URI may name.
    static let plainHTTPHosts: Set<String> = ["localhost", "169.254.170.2", "169.254.170.23", "fd00:ec2::23", "[fd00:ec2::23]"]

    let url: String
    let token: String?
    let tokenFile: String?
    let http: CredentialHTTP

    var name: String { "the container credentials endpoint \(url)" }

    /// `nil` when neither URI variable is set.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when the URI is
    ///   malformed or names a host credentials may not come from over plain http.
    init?(environment: [String: String], http: CredentialHTTP) throws(S3ClientError) {
        if let relative = environment.nonEmpty("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
            guard relative.hasPrefix("/"), URL(string: "http://169.254.170.2" + relative) != nil else {
                throw .credentialsUnavailable(source: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                                              reason: "\(relative) is not a path starting with /")
            }
            url = "http://169.254.170.2" + relative
        } else if let full = environment.nonEmpty("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
            guard let components = URLComponents(string: full), let host = components.host?.lowercased(), !host.isEmpty,
                  let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw .credentialsUnavailable(source: "AWS_CONTAINER_CREDENTIALS_FULL_URI", reason: "\(full) is not an http(s) URL")
            }
            guard scheme == "https" || Self.isAllowedPlainHTTPHost(host) else {
                throw .credentialsUnavailable(
                    source: "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                    reason: "\(full) is plain http to \(host); only https, a loopback address or the ECS/EKS agent addresses are allowed")
            }
            url = full
        } else {
            return nil
        }
        token = environment.nonEmpty("AWS_CONTAINER_AUTHORIZATION_TOKEN")
        tokenFile = environment.nonEmpty("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE").map(environment.expandingTilde)
        self.http = http
    }

    /// Whether `host` is a loopback address or one of the agents' link-local addresses.
    static func isAllowedPlainHTTPHost(_ host: String) -> Bool {
        if plainHTTPHosts.contains(host) || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { (1...3).contains($0.utf8.count) && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && UInt8($0) != nil }
    }

    func fetch() async throws(S3ClientError) -> S3Credentials {
        var headers: [(String, String)] = [("Accept", "application/json")]
        if let authorization = try authorization() { headers.append(("Authorization", authorization)) }
        let answer = try await http.send(.GET, url, headers: headers, timeout: .seconds(5), source: name)
        guard answer.status == 200 else {
            throw .credentialsUnavailable(source: name, reason: "the endpoint answered \(answer.status)")
        }
        return try CredentialDocument.credentials(in: answer.body, source: name)
    }

    private func authorization() throws(S3ClientError) -> String? {
        guard let tokenFile else { return token }
        guard let data = FileManager.default.contents(atPath: tokenFile), data.count <= CredentialHTTP.maxBody else {
            throw .credentialsUnavailable(source: name, reason: "the token file \(tokenFile) cannot be read")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
