import Foundation

/// Temporary credentials for a role, bought from STS with a web identity token read from a
/// file (`AssumeRoleWithWebIdentity`): what EKS (IRSA), GitHub Actions OIDC and other
/// identity providers give a workload. The token file is read anew on every fetch, since
/// the platform rotates it.
struct WebIdentityCredentials: CredentialProvider {
    let tokenFile: String
    let roleARN: String
    let sessionName: String
    let endpoint: String
    let http: CredentialHTTP

    var name: String { "the web identity token \(tokenFile) for \(roleARN)" }

    /// From `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN`, `AWS_ROLE_SESSION_NAME`; `nil` when
    /// no token file is named.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when the token file is
    ///   named without a role.
    init?(environment: [String: String], http: CredentialHTTP) throws(S3ClientError) {
        guard let file = environment.nonEmpty("AWS_WEB_IDENTITY_TOKEN_FILE") else { return nil }
        guard let role = environment.nonEmpty("AWS_ROLE_ARN") else {
            throw .credentialsUnavailable(source: "AWS_WEB_IDENTITY_TOKEN_FILE",
                                          reason: "it is set but AWS_ROLE_ARN is not; set the role to assume")
        }
        self.init(tokenFile: environment.expandingTilde(file), roleARN: role,
                  sessionName: environment.nonEmpty("AWS_ROLE_SESSION_NAME"), environment: environment, http: http)
    }

    /// For a role and token file named by a profile or the environment.
    init(tokenFile: String, roleARN: String, sessionName: String?, environment: [String: String], http: CredentialHTTP) {
        self.tokenFile = tokenFile
        self.roleARN = roleARN
        self.sessionName = sessionName ?? "attachmentstore-\(Int(Date().timeIntervalSince1970))"
        let region = environment.nonEmpty("AWS_REGION") ?? environment.nonEmpty("AWS_DEFAULT_REGION")
        self.endpoint = environment.nonEmpty("AWS_ENDPOINT_URL_STS")
            ?? region.map { "https://sts.\($0).amazonaws.com" } ?? "https://sts.amazonaws.com"
        self.http = http
    }

    func fetch() async throws(S3ClientError) -> S3Credentials {
        let token = try readToken()
        let form: [(String, String)] = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleARN),
            ("RoleSessionName", sessionName), ("WebIdentityToken", token),
        ]
        let body = form.map { "\(Self.formEncoded($0.0))=\(Self.formEncoded($0.1))" }.joined(separator: "&")
        let answer = try await http.send(
            .POST, endpoint, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/xml")],
            body: body, timeout: .seconds(10), source: name)
        let root: S3XMLElement
        do {
            root = try S3XMLElement.parse(answer.body)
        } catch {
            throw .credentialsUnavailable(source: name, reason: "STS answered \(answer.status) with a body that is not XML")
        }
        guard answer.status == 200 else {
            let error = root.child("Error") ?? root
            let detail = [error.text(of: "Code"), error.text(of: "Message")].compactMap { $0 }.joined(separator: ": ")
            throw .credentialsUnavailable(source: name, reason: "STS refused (\(answer.status)\(detail.isEmpty ? "" : " " + detail))")
        }
        guard let credentials = root.child("AssumeRoleWithWebIdentityResult")?.child("Credentials") else {
            throw .credentialsUnavailable(source: name, reason: "the STS answer has no AssumeRoleWithWebIdentityResult/Credentials")
        }
        return try CredentialFields.credentials(
            accessKeyID: credentials.text(of: "AccessKeyId"), secretAccessKey: credentials.text(of: "SecretAccessKey"),
            sessionToken: credentials.text(of: "SessionToken"), expiration: credentials.text(of: "Expiration"), source: name)
    }

    private func readToken() throws(S3ClientError) -> String {
        guard let data = FileManager.default.contents(atPath: tokenFile) else {
            throw .credentialsUnavailable(source: name, reason: "the token file cannot be read")
        }
        guard data.count <= CredentialHTTP.maxBody else {
            throw .credentialsUnavailable(source: name, reason: "the token file is larger than \(CredentialHTTP.maxBody) bytes")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw .credentialsUnavailable(source: name, reason: "the token file is empty") }
        return token
    }

    /// `text` encoded for an `application/x-www-form-urlencoded` body.
    static func formEncoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
