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
        /// `path`, `virtual` or `auto` (the default): where requests name the bucket.
        public static let addressing = "S3_ADDRESSING"
        /// A PEM file of the certificate authorities to trust instead of the system's (the AWS
        /// SDKs' variable).
        public static let caBundle = "AWS_CA_BUNDLE"
    }

    /// A configuration from the environment:
    /// - the region: `S3_REGION`, else `AWS_REGION`, then `AWS_DEFAULT_REGION`, then `us-east-1`;
    /// - the endpoint: `S3_ENDPOINT` (or `S3_ENDPOINT_FILE`), else `AWS_ENDPOINT_URL_S3`, else
    ///   `AWS_ENDPOINT_URL` (both skipped when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true`), else
    ///   AWS's endpoint for the region (``awsEndpoint(region:)``);
    /// - the bucket: `S3_BUCKET`, or `bucket` when that variable is not set;
    /// - the addressing: `S3_ADDRESSING` (`path`, `virtual` or `auto`, the default:
    ///   ``S3Addressing/automatic(bucket:endpointHost:)``);
    /// - the trusted certificate authorities: `AWS_CA_BUNDLE`, a PEM file (else the system's);
    /// - the credentials: `S3_ACCESS_KEY` and `S3_SECRET_KEY` (or their `_FILE` forms) when
    ///   either is set, else the AWS default chain over `environment` (see ``S3CredentialSource``).
    /// - Throws: ``S3ClientError/invalidConfiguration(_:)`` naming the first variable that
    ///   is missing or malformed.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        bucket: String? = nil
    ) throws(S3ClientError) -> S3Configuration {
        let region = nonEmpty(environment[EnvironmentKey.region]) ?? nonEmpty(environment["AWS_REGION"])
            ?? nonEmpty(environment["AWS_DEFAULT_REGION"]) ?? "us-east-1"
        let (endpoint, endpointSource) = try Self.endpoint(in: environment, region: region)
        guard let endpointURL = URL(string: endpoint) else {
            throw .invalidConfiguration("\(endpointSource)=\(endpoint) is not a URL")
        }
        let bucketName = nonEmpty(environment[EnvironmentKey.bucket]) ?? bucket
        guard let bucketName else {
            throw .invalidConfiguration("no bucket: set \(EnvironmentKey.bucket)")
        }
        let keyNames = [EnvironmentKey.accessKey, EnvironmentKey.secretKey].flatMap { [$0, $0 + "_FILE"] }
        var configuration: S3Configuration
        if keyNames.contains(where: { nonEmpty(environment[$0]) != nil }) {
            configuration = try S3Configuration(
                endpoint: endpointURL, bucket: bucketName, region: region,
                accessKey: required(EnvironmentKey.accessKey, in: environment),
                secretKey: required(EnvironmentKey.secretKey, in: environment))
        } else {
            configuration = try S3Configuration(endpoint: endpointURL, bucket: bucketName, region: region,
                                                credentials: .awsDefaultChain(environment: environment))
        }
        switch nonEmpty(environment[EnvironmentKey.addressing]) ?? "auto" {
        case "auto": configuration.addressing = .automatic(bucket: bucketName, endpointHost: endpointURL.host() ?? "")
        case "path": configuration.addressing = .path
        case "virtual":
            guard S3Addressing.isHostLabel(bucketName) else {
                throw .invalidConfiguration("the bucket name \"\(bucketName)\" cannot stand in a host name; use path addressing (\(EnvironmentKey.addressing)=path)")
            }
            configuration.addressing = .virtualHosted
        case let other:
            throw .invalidConfiguration("addressing \(other): expected path, virtual or auto (\(EnvironmentKey.addressing), or addressing= in an s3:// URL)")
        }
        if let bundle = nonEmpty(environment[EnvironmentKey.caBundle]) {
            configuration.trustedCertificates = try S3TrustedCertificates(pemFile: bundle)
        }
        return configuration
    }

    /// AWS's S3 endpoint for `region`: `https://s3.REGION.amazonaws.com`, or
    /// `https://s3.REGION.amazonaws.com.cn` for the China regions (`cn-…`).
    public static func awsEndpoint(region: String) -> String {
        "https://s3.\(region).amazonaws.com" + (region.hasPrefix("cn-") ? ".cn" : "")
    }

    /// The endpoint the environment names, with the variable it came from.
    private static func endpoint(in environment: [String: String], region: String) throws(S3ClientError) -> (String, String) {
        if nonEmpty(environment[EnvironmentKey.endpoint]) != nil || nonEmpty(environment[EnvironmentKey.endpoint + "_FILE"]) != nil {
            return (try required(EnvironmentKey.endpoint, in: environment), EnvironmentKey.endpoint)
        }
        if environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"]?.lowercased() != "true" {
            for name in ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"] {
                if let value = nonEmpty(environment[name]) { return (value, name) }
            }
        }
        guard region.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") }) else {
            throw .invalidConfiguration("the region \(region) is not an AWS region name, so no endpoint can be derived from it; set S3_ENDPOINT")
        }
        return (awsEndpoint(region: region), "the region's AWS endpoint")
    }

    /// A configuration from a URL such as
    /// `s3://BUCKET?endpoint=http://127.0.0.1:59000&region=us-east-1&addressing=path&ca_bundle=FILE`,
    /// each parameter optional: what the URL leaves out comes from the environment as in
    /// ``fromEnvironment(_:bucket:)`` (`S3_ENDPOINT`, `AWS_ENDPOINT_URL_S3`, … or the region's AWS
    /// endpoint; `S3_REGION`, …; `S3_ADDRESSING`; `AWS_CA_BUNDLE`).
    /// - Throws: ``S3ClientError/invalidConfiguration(_:)`` when the URL is not `s3://BUCKET`,
    ///   names an unknown parameter, or a setting or credential is missing or malformed.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(S3ClientError) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "s3",
              let bucket = nonEmpty(components.host), components.path.isEmpty || components.path == "/" else {
            throw .invalidConfiguration("\(url) is not an S3 URL like s3://BUCKET?endpoint=http://127.0.0.1:9000&region=us-east-1")
        }
        let items = components.queryItems ?? []
        let value = { (name: String) in nonEmpty(items.first { $0.name == name }?.value) }
        let parameters = ["endpoint": EnvironmentKey.endpoint, "region": EnvironmentKey.region,
                          "addressing": EnvironmentKey.addressing, "ca_bundle": EnvironmentKey.caBundle]
        if let unknown = items.first(where: { parameters[$0.name] == nil }) {
            throw .invalidConfiguration("\(url): unknown parameter \(unknown.name) (understood: endpoint, region, addressing, ca_bundle)")
        }
        var merged = environment
        merged[EnvironmentKey.bucket] = bucket
        for (parameter, variable) in parameters {
            if let given = value(parameter) {
                merged[variable] = given
                merged[variable + "_FILE"] = nil
            }
        }
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
