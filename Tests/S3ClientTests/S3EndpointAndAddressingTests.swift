import AsyncHTTPClient
import Foundation
@testable import S3Client
import Testing
import TestSupport

/// Where a configuration sends its requests when the user writes S3 settings as the AWS tools
/// do: the endpoint from `S3_ENDPOINT`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL` or the region;
/// the bucket in the host on AWS and in the path elsewhere, unless `S3_ADDRESSING` or
/// `addressing=` says otherwise; and a virtual-hosted request's URL, `Host` and signature.
@Suite("S3 endpoints from the AWS variables and the region; path or virtual-hosted addressing")
struct S3EndpointAndAddressingTests {
    static let keys = ["S3_ACCESS_KEY": "AKIAEXAMPLE", "S3_SECRET_KEY": "SecretValue123", "S3_BUCKET": "photos"]

    static func configuration(_ variables: [String: String]) throws -> S3Configuration {
        try S3Configuration.fromEnvironment(keys.merging(variables) { $1 })
    }

    static func refusal(_ variables: [String: String]) -> String? {
        do {
            _ = try configuration(variables)
            return nil
        } catch S3ClientError.invalidConfiguration(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test("the endpoint is S3_ENDPOINT, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else the region's AWS endpoint", arguments: [
        (["S3_ENDPOINT": "http://a:1", "AWS_ENDPOINT_URL_S3": "http://b:2", "AWS_ENDPOINT_URL": "http://c:3"], "http://a:1"),
        (["AWS_ENDPOINT_URL_S3": "http://b:2", "AWS_ENDPOINT_URL": "http://c:3"], "http://b:2"),
        (["AWS_ENDPOINT_URL": "http://c:3"], "http://c:3"),
        (["AWS_ENDPOINT_URL_S3": "", "AWS_ENDPOINT_URL": "http://c:3"], "http://c:3"),
        (["AWS_REGION": "eu-west-3"], "https://s3.eu-west-3.amazonaws.com"),
        ([:], "https://s3.us-east-1.amazonaws.com"),
        (["S3_REGION": "cn-north-1"], "https://s3.cn-north-1.amazonaws.com.cn"),
        (["AWS_ENDPOINT_URL_S3": "http://b:2", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true", "AWS_REGION": "ap-south-1"],
         "https://s3.ap-south-1.amazonaws.com"),
    ] as [([String: String], String)])
    func endpointOrder(variables: [String: String], endpoint: String) throws {
        #expect(try Self.configuration(variables).endpoint.absoluteString == endpoint)
    }

    @Test("a region that is no AWS region name cannot make an endpoint, and says to set one")
    func regionThatCannotMakeAnEndpoint() {
        #expect(Self.refusal(["S3_REGION": "evil.example.com/x"])
            == "the region evil.example.com/x is not an AWS region name, so no endpoint can be derived from it; set S3_ENDPOINT")
    }

    @Test("auto addressing puts a DNS-safe bucket in the host on AWS only", arguments: [
        ("https://s3.eu-west-1.amazonaws.com", "photos", S3Addressing.virtualHosted),
        ("https://s3.cn-north-1.amazonaws.com.cn", "photos", .virtualHosted),
        ("https://s3.eu-west-1.amazonaws.com", "my.photos", .path),
        ("https://s3.eu-west-1.amazonaws.com", "Photos", .path),
        ("https://s3.eu-west-1.amazonaws.com", "ab", .path),
        ("http://127.0.0.1:59000", "photos", .path),
        ("https://minio.example.com", "photos", .path),
        ("https://amazonaws.com.evil.example", "photos", .path),
    ] as [(String, String, S3Addressing)])
    func automaticAddressing(endpoint: String, bucket: String, addressing: S3Addressing) throws {
        #expect(try Self.configuration(["S3_ENDPOINT": endpoint, "S3_BUCKET": bucket]).addressing == addressing)
    }

    @Test("S3_ADDRESSING and addressing= choose path or virtual; a bucket that cannot be a host label is refused virtual")
    func explicitAddressing() throws {
        #expect(try Self.configuration(["S3_ENDPOINT": "https://minio.example.com", "S3_ADDRESSING": "virtual"]).addressing == .virtualHosted)
        #expect(try Self.configuration(["S3_ENDPOINT": "https://s3.eu-west-1.amazonaws.com", "S3_ADDRESSING": "path"]).addressing == .path)
        let fromURL = try S3Configuration(url: "s3://photos?endpoint=https://minio.example.com&addressing=virtual", environment: Self.keys)
        #expect(fromURL.addressing == .virtualHosted)
        #expect(Self.refusal(["S3_ENDPOINT": "https://minio.example.com", "S3_ADDRESSING": "sideways"])
            == "addressing sideways: expected path, virtual or auto (S3_ADDRESSING, or addressing= in an s3:// URL)")
        #expect(Self.refusal(["S3_ENDPOINT": "https://minio.example.com", "S3_ADDRESSING": "virtual", "S3_BUCKET": "my.photos"])
            == "the bucket name \"my.photos\" cannot stand in a host name; use path addressing (S3_ADDRESSING=path)")
    }

    @Test("a virtual-hosted request names the bucket in the URL's host and the Host header, the key alone in the path")
    func virtualHostedRequest() throws {
        var configuration = try Self.configuration(["S3_ENDPOINT": "https://s3.eu-west-1.amazonaws.com"])
        #expect(configuration.addressing == .virtualHosted)
        let client = S3Client(configuration: configuration)
        let request = client.makeHTTPRequest(S3Request(.GET, key: "sha256/ab cd"),
                                             signedWith: S3Credentials(accessKeyID: "AKIAEXAMPLE", secretAccessKey: "SecretValue123"))
        #expect(request.url == "https://photos.s3.eu-west-1.amazonaws.com/sha256/ab%20cd")
        #expect(request.headers.first(name: "Host") == "photos.s3.eu-west-1.amazonaws.com")
        #expect(client.path(for: nil) == "/")
        // What AWS would receive (the path without the bucket, Host with it) verifies.
        let received = FakeAWSEndpoint.Request(method: "GET", uri: "/sha256/ab%20cd",
                                               headers: request.headers.map { ($0.name, $0.value) }, body: "")
        #expect(SignatureCheck.verify(received, secret: "SecretValue123")?.valid == true)
        configuration.endpoint = try #require(URL(string: "http://gateway.example.com:8080/s3"))
        let behindProxy = S3Client(configuration: configuration)
        #expect(behindProxy.hostHeader == "photos.gateway.example.com:8080")
        #expect(behindProxy.path(for: "k") == "/s3/k")
    }

    @Test("the description says virtual-hosted and names the CA bundle, never a secret")
    func description() throws {
        let configuration = try Self.configuration(["S3_ENDPOINT": "https://s3.eu-west-1.amazonaws.com"])
        #expect(configuration.description.contains("virtual-hosted"))
        #expect(!configuration.description.contains("SecretValue123"))
    }

    @Test("AWS_ENDPOINT_URL_S3 alone reaches the local S3 server: an object goes in and comes back", .needsS3)
    func awsEndpointVariableReachesARealServer() async throws {
        var environment = S3TestEnvironment.environment
        let endpoint = try #require(environment["S3_ENDPOINT"])
        environment["S3_ENDPOINT"] = nil
        environment["AWS_ENDPOINT_URL_S3"] = endpoint
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:1"
        let configuration = try S3Configuration.fromEnvironment(environment)
        #expect(configuration.endpoint.absoluteString == endpoint)
        #expect(configuration.addressing == .path)
        let client = S3Client(configuration: configuration)
        let key = S3TestEnvironment.uniquePrefix("aws-endpoint") + "object.txt"
        try await client.putObject(key: key, data: Array("through AWS_ENDPOINT_URL_S3".utf8))
        #expect(try await client.bytes(of: key) == Array("through AWS_ENDPOINT_URL_S3".utf8))
        try await client.deleteObject(key: key)
    }
}
