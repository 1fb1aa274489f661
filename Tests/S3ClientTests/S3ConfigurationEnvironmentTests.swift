import Foundation
@testable import S3Client
import Testing
import TestSupport

/// `S3Configuration` read from the environment and from `s3://` URLs, beyond the basic cases:
/// the region's fallbacks, empty variables, `_FILE` forms (the endpoint's too, CRLF and empty
/// files), half-set keys, the AWS chain when no keys are set, the validation of endpoint,
/// bucket, region and keys, the defaults, and the description, which never shows a secret.
@Suite("S3 configuration: environment, URLs and validation edges")
struct S3ConfigurationEnvironmentTests {
    static let base = ["S3_ENDPOINT": "http://127.0.0.1:59000", "S3_BUCKET": "attach",
                       "S3_ACCESS_KEY": "AKIAEXAMPLE", "S3_SECRET_KEY": "SecretValue123"]

    /// The reason `body` is refused with as an invalid configuration, nil when it succeeds.
    static func refusal(_ body: () throws -> S3Configuration) -> String? {
        do {
            _ = try body()
            return nil
        } catch S3ClientError.invalidConfiguration(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    static func environment(_ changes: [String: String?]) -> [String: String] {
        var environment = base
        for (name, value) in changes { environment[name] = value }
        return environment
    }

    // MARK: - Region

    @Test("the region is S3_REGION, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1; empty ones are skipped", arguments: [
        (["S3_REGION": "eu-west-1", "AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "ap-south-1"], "eu-west-1"),
        (["AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "ap-south-1"], "us-west-2"),
        (["AWS_DEFAULT_REGION": "ap-south-1"], "ap-south-1"),
        ([:], "us-east-1"),
        (["S3_REGION": "", "AWS_REGION": "us-west-2"], "us-west-2"),
        (["S3_REGION": "", "AWS_REGION": "", "AWS_DEFAULT_REGION": ""], "us-east-1"),
    ] as [([String: String], String)])
    func regionFallbacks(variables: [String: String], region: String) throws {
        let environment = Self.base.merging(variables) { $1 }
        #expect(try S3Configuration.fromEnvironment(environment).region == region)
    }

    // MARK: - Bucket and endpoint

    @Test("an empty S3_BUCKET falls back to the caller's bucket; with neither there is no bucket")
    func bucketFallbacks() {
        let empty = Self.environment(["S3_BUCKET": ""])
        #expect((try? S3Configuration.fromEnvironment(empty, bucket: "fallback"))?.bucket == "fallback")
        #expect(Self.refusal { try S3Configuration.fromEnvironment(empty) } == "no bucket: set S3_BUCKET")
        #expect(Self.refusal { try S3Configuration.fromEnvironment(Self.environment(["S3_BUCKET": nil])) } == "no bucket: set S3_BUCKET")
    }

    @Test("S3_BUCKET wins over the caller's bucket")
    func environmentBucketWins() throws {
        #expect(try S3Configuration.fromEnvironment(Self.base, bucket: "other").bucket == "attach")
    }

    @Test("a bucket name with a slash is refused, quoting it")
    func bucketWithSlash() {
        #expect(Self.refusal { try S3Configuration.fromEnvironment(Self.environment(["S3_BUCKET": "photos/2024"])) }
            == "the bucket name \"photos/2024\" is empty or contains a slash")
    }

    @Test("S3_ENDPOINT_FILE may name the endpoint instead of S3_ENDPOINT")
    func endpointFromFile() throws {
        let directory = try TemporaryDirectory("s3-endpoint-file")
        let file = directory.appending("endpoint")
        try Data("https://s3.example.com\n".utf8).write(to: file)
        let configuration = try S3Configuration.fromEnvironment(
            Self.environment(["S3_ENDPOINT": nil, "S3_ENDPOINT_FILE": file.path(percentEncoded: false)]))
        #expect(configuration.endpoint.absoluteString == "https://s3.example.com")
    }

    @Test("endpoints that are not absolute http(s) URLs with a host are refused", arguments: [
        "ftp://127.0.0.1:21", "127.0.0.1:9000", "/just/a/path", "http://", "mailto:s3@example.com",
    ])
    func badEndpoints(endpoint: String) throws {
        let reason = try #require(Self.refusal { try S3Configuration.fromEnvironment(Self.environment(["S3_ENDPOINT": endpoint])) })
        #expect(reason.contains("is not") && reason.contains("URL"), "\(reason)")
    }

    @Test("http and https endpoints are accepted in any case of the scheme, with a port or a path", arguments: [
        "http://127.0.0.1:9000", "https://s3.eu-west-1.amazonaws.com", "HTTPS://S3.EXAMPLE.COM", "http://[::1]:9000",
        "http://proxy.internal/s3/",
    ])
    func goodEndpoints(endpoint: String) throws {
        let configuration = try S3Configuration.fromEnvironment(Self.environment(["S3_ENDPOINT": endpoint]))
        #expect(configuration.endpoint.absoluteString == endpoint)
    }

    // MARK: - Keys

    @Test("with neither key set, nor their files, the AWS default chain reads the same environment")
    func defaultChainWithoutKeys() throws {
        let environment = Self.environment(["S3_ACCESS_KEY": nil, "S3_SECRET_KEY": nil, "AWS_PROFILE": "work"])
        let configuration = try S3Configuration.fromEnvironment(environment)
        #expect(configuration.credentials == .awsDefaultChain(environment: environment))
    }

    @Test("empty key variables count as unset: the AWS chain is used")
    func emptyKeysAreUnset() throws {
        let environment = Self.environment(["S3_ACCESS_KEY": "", "S3_SECRET_KEY": ""])
        guard case .awsDefaultChain = try S3Configuration.fromEnvironment(environment).credentials else {
            Issue.record("expected the AWS default chain")
            return
        }
    }

    @Test("setting one key but not the other is refused, naming the missing one", arguments: [
        (["S3_SECRET_KEY": nil], "S3_SECRET_KEY (or S3_SECRET_KEY_FILE) is not set"),
        (["S3_ACCESS_KEY": nil], "S3_ACCESS_KEY (or S3_ACCESS_KEY_FILE) is not set"),
        (["S3_ACCESS_KEY": nil, "S3_SECRET_KEY": nil, "S3_SECRET_KEY_FILE": "/dev/null"], "S3_ACCESS_KEY (or S3_ACCESS_KEY_FILE) is not set"),
    ] as [([String: String?], String)])
    func halfSetKeys(changes: [String: String?], reason: String) {
        #expect(Self.refusal { try S3Configuration.fromEnvironment(Self.environment(changes)) } == reason)
    }

    @Test("a value in the variable wins over its _FILE form")
    func variableWinsOverFile() throws {
        let configuration = try S3Configuration.fromEnvironment(Self.environment(["S3_SECRET_KEY_FILE": "/nonexistent/secret"]))
        #expect(configuration.credentials == .fixed(S3Credentials(accessKeyID: "AKIAEXAMPLE", secretAccessKey: "SecretValue123")))
    }

    @Test("a key file's CRLF ending is dropped; a file of only newlines is empty and refused")
    func keyFileContents() throws {
        let directory = try TemporaryDirectory("s3-key-files")
        let crlf = directory.appending("crlf")
        let blank = directory.appending("blank")
        try Data("windows-secret\r\n".utf8).write(to: crlf)
        try Data("\n\n".utf8).write(to: blank)
        let fromCRLF = try S3Configuration.fromEnvironment(
            Self.environment(["S3_SECRET_KEY": nil, "S3_SECRET_KEY_FILE": crlf.path(percentEncoded: false)]))
        #expect(fromCRLF.credentials == .fixed(S3Credentials(accessKeyID: "AKIAEXAMPLE", secretAccessKey: "windows-secret")))
        let blankPath = blank.path(percentEncoded: false)
        #expect(Self.refusal { try S3Configuration.fromEnvironment(Self.environment(["S3_ACCESS_KEY": nil, "S3_ACCESS_KEY_FILE": blankPath])) }
            == "S3_ACCESS_KEY_FILE names \(blankPath), which is empty")
    }

    @Test("a key file that is not UTF-8 cannot be read")
    func keyFileNotUTF8() throws {
        let directory = try TemporaryDirectory("s3-key-binary")
        let binary = directory.appending("binary")
        try Data([0xFF, 0xFE, 0x00, 0xC3]).write(to: binary)
        let path = binary.path(percentEncoded: false)
        #expect(Self.refusal { try S3Configuration.fromEnvironment(Self.environment(["S3_SECRET_KEY": nil, "S3_SECRET_KEY_FILE": path])) }
            == "S3_SECRET_KEY_FILE names \(path), which cannot be read")
    }

    @Test("the direct initialisers refuse empty keys and an empty region")
    func directInitialisers() throws {
        let endpoint = try #require(URL(string: "http://127.0.0.1:9000"))
        #expect(Self.refusal { try S3Configuration(endpoint: endpoint, bucket: "b", accessKey: "", secretKey: "s") }
            == "the access key and the secret key must both be set (S3_ACCESS_KEY, S3_SECRET_KEY)")
        #expect(Self.refusal { try S3Configuration(endpoint: endpoint, bucket: "b", accessKey: "k", secretKey: "") }
            == "the access key and the secret key must both be set (S3_ACCESS_KEY, S3_SECRET_KEY)")
        #expect(Self.refusal { try S3Configuration(endpoint: endpoint, bucket: "b", region: "", accessKey: "k", secretKey: "s") }
            == "the region is empty (S3_REGION, e.g. us-east-1)")
        #expect(Self.refusal { try S3Configuration(endpoint: endpoint, bucket: "", accessKey: "k", secretKey: "s") }
            == "the bucket name \"\" is empty or contains a slash")
    }

    // MARK: - Defaults and description

    @Test("a new configuration uploads files over 16 MiB in 8 MiB parts, retries four times and waits up to five minutes")
    func defaults() throws {
        let configuration = try S3Configuration.fromEnvironment(Self.base)
        #expect(configuration.multipartThreshold == 16 << 20)
        #expect(configuration.partSize == 8 << 20)
        #expect(configuration.partSize >= S3Client.minimumPartSize)
        #expect(configuration.retry == S3RetryPolicy())
        #expect(configuration.requestTimeout == .seconds(300))
    }

    @Test("the description names bucket, endpoint, region and access key, in one line")
    func description() throws {
        let configuration = try S3Configuration.fromEnvironment(Self.environment(["S3_REGION": "eu-central-1"]))
        #expect(configuration.description == "s3://attach at http://127.0.0.1:59000 (region eu-central-1, access key AKIAEXAMPLE)")
    }

    @Test("the description of a configuration on the AWS chain names the chain, never the environment's secrets")
    func descriptionOfChain() throws {
        let environment = Self.environment(["S3_ACCESS_KEY": nil, "S3_SECRET_KEY": nil,
                                            "AWS_ACCESS_KEY_ID": "AKIACHAIN", "AWS_SECRET_ACCESS_KEY": "ChainSecret", "AWS_SESSION_TOKEN": "ChainToken"])
        let description = try S3Configuration.fromEnvironment(environment).description
        #expect(description == "s3://attach at http://127.0.0.1:59000 (region us-east-1, the AWS default credential chain)")
    }

    @Test("temporary fixed credentials are described with their token's presence, never the token or secret")
    func descriptionWithToken() throws {
        var configuration = try S3Configuration.fromEnvironment(Self.base)
        configuration.credentials = .fixed(S3Credentials(accessKeyID: "ASIATEMP", secretAccessKey: "TempSecret", sessionToken: "TempToken"))
        #expect(configuration.description.hasSuffix("(region us-east-1, access key ASIATEMP with a session token)"))
        #expect(!configuration.description.contains("TempSecret"))
        #expect(!configuration.description.contains("TempToken"))
    }

    // MARK: - s3:// URLs

    @Test("an s3:// URL without endpoint= or region= takes them from the environment")
    func urlFallsBackToEnvironment() throws {
        let configuration = try S3Configuration(url: "s3://photos", environment: Self.environment(["AWS_REGION": "sa-east-1"]))
        #expect(configuration.bucket == "photos")
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:59000")
        #expect(configuration.region == "sa-east-1")
    }

    @Test("empty endpoint= and region= parameters count as absent")
    func urlEmptyParameters() throws {
        let configuration = try S3Configuration(url: "s3://photos?endpoint=&region=", environment: Self.environment(["S3_REGION": "eu-north-1"]))
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:59000")
        #expect(configuration.region == "eu-north-1")
    }

    @Test("a trailing slash after the bucket and an upper-case scheme are accepted")
    func urlSpellings() throws {
        #expect(try S3Configuration(url: "s3://photos/", environment: Self.base).bucket == "photos")
        #expect(try S3Configuration(url: "S3://photos", environment: Self.base).bucket == "photos")
    }

    @Test("an endpoint behind a proxy path survives the s3:// URL")
    func urlEndpointWithPath() throws {
        let configuration = try S3Configuration(url: "s3://photos?endpoint=https://gateway.example.com/s3&region=us-west-1", environment: Self.base)
        #expect(configuration.endpoint.absoluteString == "https://gateway.example.com/s3")
        #expect(configuration.region == "us-west-1")
    }

    @Test("an unknown parameter is refused by name")
    func urlUnknownParameter() {
        #expect(Self.refusal { try S3Configuration(url: "s3://photos?endpoint=http://h:1&bucket=x", environment: Self.base) }
            == "s3://photos?endpoint=http://h:1&bucket=x: unknown parameter bucket (understood: endpoint, region, addressing, ca_bundle)")
    }

    @Test("an s3:// URL without an endpoint anywhere goes to AWS's endpoint for its region, the bucket in the host")
    func urlWithoutEndpoint() throws {
        let configuration = try S3Configuration(url: "s3://photos?region=eu-central-1", environment: Self.environment(["S3_ENDPOINT": nil]))
        #expect(configuration.endpoint.absoluteString == "https://s3.eu-central-1.amazonaws.com")
        #expect(configuration.addressing == .virtualHosted)
    }
}
