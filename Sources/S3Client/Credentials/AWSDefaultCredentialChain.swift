import Foundation

/// Picks the one place the AWS default chain takes credentials from, in the SDKs' order (see
/// ``S3CredentialSource``). The choice is made from what is configured (variables, files),
/// so a misconfigured source is an error rather than a silent fall-through to the next.
struct AWSDefaultCredentialChain {
    let environment: [String: String]
    let http: CredentialHTTP

    /// The provider for the first configured source.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when a source is
    ///   configured wrongly, or none is and the instance metadata service is disabled.
    func provider() throws(S3ClientError) -> any CredentialProvider {
        if let keys = try EnvironmentCredentials(environment: environment) { return keys }
        if let webIdentity = try WebIdentityCredentials(environment: environment, http: http) { return webIdentity }
        if let profile = try SharedFilesCredentials.provider(environment: environment, http: http) { return profile }
        if let container = try ContainerCredentials(environment: environment, http: http) { return container }
        if environment.nonEmpty("AWS_EC2_METADATA_DISABLED")?.lowercased() == "true" {
            throw .credentialsUnavailable(
                source: "the AWS default credential chain",
                reason: "none of its sources is configured (AWS_ACCESS_KEY_ID, AWS_WEB_IDENTITY_TOKEN_FILE, "
                    + "AWS_PROFILE or ~/.aws/credentials, AWS_CONTAINER_CREDENTIALS_*) and AWS_EC2_METADATA_DISABLED=true; "
                    + "set S3_ACCESS_KEY and S3_SECRET_KEY, or one of those")
        }
        return try InstanceMetadataCredentials(environment: environment, http: http)
    }
}

/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
struct EnvironmentCredentials: CredentialProvider {
    let name = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
    let credentials: S3Credentials

    /// `nil` when neither key is set.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when only one is.
    init?(environment: [String: String]) throws(S3ClientError) {
        let access = environment.nonEmpty("AWS_ACCESS_KEY_ID"), secret = environment.nonEmpty("AWS_SECRET_ACCESS_KEY")
        guard access != nil || secret != nil else { return nil }
        guard let access, let secret else {
            throw .credentialsUnavailable(source: name, reason: "only one of the two is set; set both")
        }
        credentials = S3Credentials(accessKeyID: access, secretAccessKey: secret,
                                    sessionToken: environment.nonEmpty("AWS_SESSION_TOKEN"))
    }

    func fetch() async throws(S3ClientError) -> S3Credentials { credentials }
}

extension [String: String] {
    /// The value of `name` unless it is missing or empty.
    func nonEmpty(_ name: String) -> String? {
        guard let value = self[name], !value.isEmpty else { return nil }
        return value
    }

    /// The user's home directory: `HOME`, else the process's.
    var homeDirectory: String { nonEmpty("HOME") ?? NSHomeDirectory() }

    /// `path` with a leading `~/` replaced by the home directory.
    func expandingTilde(_ path: String) -> String {
        path.hasPrefix("~/") ? homeDirectory + path.dropFirst(1) : path
    }
}
