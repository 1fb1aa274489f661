import Foundation

extension S3Configuration {
    /// The environment variables a configuration is read from.
    public enum EnvironmentKey {
        /// The server's base URL, e.g. `http://127.0.0.1:59000`.
        public static let endpoint = "S3_ENDPOINT"
        /// The access key id.
        public static let accessKey = "S3_ACCESS_KEY"
        /// The secret access key.
        public static let secretKey = "S3_SECRET_KEY"
        /// The signing region (default `us-east-1`).
        public static let region = "S3_REGION"
        /// The bucket.
        public static let bucket = "S3_BUCKET"
    }

    /// A configuration from `S3_ENDPOINT`, `S3_REGION` (else `AWS_REGION`, then
    /// `AWS_DEFAULT_REGION`, then `us-east-1`), `S3_BUCKET` (or `bucket` when that variable is
    /// not set), and the credentials: `S3_ACCESS_KEY` and `S3_SECRET_KEY` (or their `_FILE`
    /// forms) when either is set, else the AWS default chain over `environment` (see
    /// ``S3CredentialSource``).
    /// - Throws: ``S3ClientError/invalidConfiguration(_:)`` naming the first variable that
    ///   is missing or malformed.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        bucket: String? = nil
    ) throws(S3ClientError) -> S3Configuration {
        let endpoint = try required(EnvironmentKey.endpoint, in: environment)
        guard let endpointURL = URL(string: endpoint) else {
            throw .invalidConfiguration("\(EnvironmentKey.endpoint)=\(endpoint) is not a URL")
        }
        let bucketName = nonEmpty(environment[EnvironmentKey.bucket]) ?? bucket
        guard let bucketName else {
            throw .invalidConfiguration("no bucket: set \(EnvironmentKey.bucket)")
        }
        let region = nonEmpty(environment[EnvironmentKey.region]) ?? nonEmpty(environment["AWS_REGION"])
            ?? nonEmpty(environment["AWS_DEFAULT_REGION"]) ?? "us-east-1"
        let keyNames = [EnvironmentKey.accessKey, EnvironmentKey.secretKey].flatMap { [$0, $0 + "_FILE"] }
        guard keyNames.contains(where: { nonEmpty(environment[$0]) != nil }) else {
            return try S3Configuration(endpoint: endpointURL, bucket: bucketName, region: region,
                                       credentials: .awsDefaultChain(environment: environment))
        }
        return try S3Configuration(
            endpoint: endpointURL,
            bucket: bucketName,
            region: region,
            accessKey: required(EnvironmentKey.accessKey, in: environment),
            secretKey: required(EnvironmentKey.secretKey, in: environment)
        )
    }

    /// A configuration from a URL such as
    /// `s3://BUCKET?endpoint=http://127.0.0.1:59000&region=us-east-1`, with the credentials
    /// from `S3_ACCESS_KEY` and `S3_SECRET_KEY`, else the AWS default chain. Without `endpoint=` the URL falls back to
    /// `S3_ENDPOINT`; without `region=`, to `S3_REGION`, then `us-east-1`.
    /// - Throws: ``S3ClientError/invalidConfiguration(_:)`` when the URL is not `s3://BUCKET`
    ///   or the endpoint or a credential is missing.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(S3ClientError) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "s3",
              let bucket = nonEmpty(components.host), components.path.isEmpty || components.path == "/" else {
            throw .invalidConfiguration("\(url) is not an S3 URL like s3://BUCKET?endpoint=http://127.0.0.1:9000&region=us-east-1")
        }
        let items = components.queryItems ?? []
        let value = { (name: String) in nonEmpty(items.first { $0.name == name }?.value) }
        if let unknown = items.first(where: { $0.name != "endpoint" && $0.name != "region" }) {
            throw .invalidConfiguration("\(url): unknown parameter \(unknown.name) (only endpoint and region are understood)")
        }
        var merged = environment
        merged[EnvironmentKey.bucket] = bucket
        if let endpoint = value("endpoint") { merged[EnvironmentKey.endpoint] = endpoint }
        if let region = value("region") { merged[EnvironmentKey.region] = region }
        self = try Self.fromEnvironment(merged)
    }

    /// `NAME`, or the contents of the file `NAME_FILE` names (a trailing newline dropped), so a
    /// secret need not sit in the environment of every process.
    private static func required(_ name: String, in environment: [String: String]) throws(S3ClientError) -> String {
        if let value = nonEmpty(environment[name]) { return value }
        if let file = nonEmpty(environment[name + "_FILE"]) {
            guard let contents = FileManager.default.contents(atPath: file), let text = String(data: contents, encoding: .utf8) else {
                throw .invalidConfiguration("\(name)_FILE names \(file), which cannot be read")
            }
            guard let value = nonEmpty(text.trimmingCharacters(in: .newlines)) else {
                throw .invalidConfiguration("\(name)_FILE names \(file), which is empty")
            }
            return value
        }
        throw .invalidConfiguration("\(name) (or \(name)_FILE) is not set")
    }
}

private func nonEmpty(_ value: String?) -> String? {
    guard let value, !value.isEmpty else { return nil }
    return value
}
