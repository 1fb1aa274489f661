import Foundation
@testable import S3Client
import Synchronization
import Testing
import TestSupport

/// Credential endpoints that lie, ramble or fail: each answer is a typed error naming the
/// source, nothing is signed with half a credential, and a later request tries again.
@Suite("S3 credentials: hostile endpoints", .timeLimit(.minutes(3)))
struct HostileCredentialEndpointTests {
    /// The error the default chain gives against a container endpoint answering `answer`.
    static func containerFailure(_ answer: FakeAWSEndpoint.Answer) async throws -> String? {
        let home = try TemporaryDirectory("aws-home")
        let endpoint = try await FakeAWSEndpoint.start { request in request.path == "/creds" ? answer : .init(status: .noContent) }
        defer { Task { try await endpoint.stop() } }
        let s3 = try CredentialSourceTests.client(endpoint, CredentialSourceTests.isolated(home, [
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": endpoint.url + "/creds",
        ]))
        do {
            try await s3.deleteObject(key: "k")
            return nil
        } catch let S3ClientError.credentialsUnavailable(source, reason) {
            #expect(endpoint.requests(under: "/b/").isEmpty, "nothing is signed without credentials")
            #expect(source.contains("container credentials endpoint"))
            return reason
        }
    }

    @Test("a document without a secret, with a failure code, with a bad expiry, or not JSON is refused", arguments: [
        (#"{"AccessKeyId":"ASIA","Token":"t","Expiration":"2030-01-01T00:00:00Z"}"#, "no AccessKeyId or SecretAccessKey"),
        (#"{"Code":"Failure","Message":"role not attached"}"#, "Failure"),
        (#"{"AccessKeyId":"ASIA","SecretAccessKey":"s","Expiration":"tomorrow"}"#, "not an ISO 8601 date"),
        ("<html>captive portal</html>", "not a credentials document"),
    ])
    func malformedDocument(body: String, reason: String) async throws {
        let failure = try await Self.containerFailure(.json(body))
        #expect(failure?.contains(reason) == true, "\(failure ?? "no error")")
    }

    @Test("an endpoint answering a body larger than 64 KiB is cut off and refused")
    func oversizedAnswer() async throws {
        let failure = try await Self.containerFailure(.json(String(repeating: " ", count: 200_000) + "{}"))
        #expect(failure?.contains("more than 65536 bytes") == true, "\(failure ?? "no error")")
    }

    @Test("an error status from the container endpoint is a typed error naming it")
    func errorStatus() async throws {
        let failure = try await Self.containerFailure(.init(status: .forbidden, body: "denied"))
        #expect(failure == "the endpoint answered 403")
    }

    @Test("STS refusing the token, or answering what is not XML, is a typed error with STS's own words")
    func stsRefusal() async throws {
        let home = try TemporaryDirectory("aws-home")
        try Data("oidc".utf8).write(to: home.appending("token"))
        let answers = Mutex<[FakeAWSEndpoint.Answer]>([
            .xml("<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>Token expired</Message></Error></ErrorResponse>",
                 status: .badRequest),
            .json("{\"not\": \"xml\"}"),
            .xml("<AssumeRoleWithWebIdentityResponse><Unexpected/></AssumeRoleWithWebIdentityResponse>"),
        ])
        let endpoint = try await FakeAWSEndpoint.start { _ in answers.withLock { $0.removeFirst() } }
        let environment = CredentialSourceTests.isolated(home, [
            "AWS_WEB_IDENTITY_TOKEN_FILE": home.appending("token").path(percentEncoded: false),
            "AWS_ROLE_ARN": "arn:aws:iam::1:role/r", "AWS_ENDPOINT_URL_STS": endpoint.url,
        ])
        let provider = try AWSDefaultCredentialChain(environment: environment, http: CredentialHTTP(client: S3Client.defaultHTTPClient)).provider()
        var reasons: [String] = []
        for _ in 0..<3 {
            do {
                _ = try await provider.fetch()
            } catch let S3ClientError.credentialsUnavailable(_, reason) {
                reasons.append(reason)
            }
        }
        #expect(reasons.count == 3)
        #expect(reasons.first == "STS refused (400 InvalidIdentityToken: Token expired)")
        #expect(reasons.dropFirst().first?.contains("not XML") == true)
        #expect(reasons.last?.contains("no AssumeRoleWithWebIdentityResult") == true)
        try await endpoint.stop()
    }

    @Test("an instance metadata role list that is not a role name is never put in a path")
    func hostileRoleName() async throws {
        let home = try TemporaryDirectory("aws-home")
        let endpoint = try await FakeAWSEndpoint.start { request in
            if request.method == "PUT" { return .init(body: "session") }
            if request.path == "/latest/meta-data/iam/security-credentials/" { return .init(body: "../../../user-data\n") }
            return .init(body: "#!/bin/sh\nsecret user data")
        }
        var environment = CredentialSourceTests.isolated(home, ["AWS_EC2_METADATA_SERVICE_ENDPOINT": endpoint.url])
        environment["AWS_EC2_METADATA_DISABLED"] = nil
        let provider = try AWSDefaultCredentialChain(environment: environment, http: CredentialHTTP(client: S3Client.defaultHTTPClient)).provider()
        await #expect {
            _ = try await provider.fetch()
        } throws: { error in
            guard case S3ClientError.credentialsUnavailable(_, let reason) = error else { return false }
            return reason.contains("does not start with a role name")
        }
        #expect(endpoint.requests.count == 2)
        try await endpoint.stop()
    }

    @Test("a failed fetch is not remembered: the next request asks again and succeeds")
    func failureNotCached() async throws {
        let home = try TemporaryDirectory("aws-home")
        let calls = Mutex(0)
        let endpoint = try await FakeAWSEndpoint.start { request in
            guard request.path == "/creds" else { return .init(status: .noContent) }
            let n = calls.withLock { $0 += 1; return $0 }
            return n == 1 ? .init(status: .internalServerError) : CredentialSourceTests.document(key: "ASIAOK", secret: "s", token: "t")
        }
        let s3 = try CredentialSourceTests.client(endpoint, CredentialSourceTests.isolated(home, [
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": endpoint.url + "/creds",
        ]))
        await #expect(throws: S3ClientError.self) { try await s3.deleteObject(key: "k") }
        try await s3.deleteObject(key: "k")
        #expect(calls.withLock { $0 } == 2)
        #expect(endpoint.requests(under: "/b/").count == 1)
        try await endpoint.stop()
    }

    @Test("an instance metadata service that cannot be reached is a typed error")
    func unreachableMetadata() async throws {
        let home = try TemporaryDirectory("aws-home")
        let port = try await FreePort.pick()
        var environment = CredentialSourceTests.isolated(home, ["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:\(port)"])
        environment["AWS_EC2_METADATA_DISABLED"] = nil
        let provider = try AWSDefaultCredentialChain(environment: environment, http: CredentialHTTP(client: S3Client.defaultHTTPClient)).provider()
        await #expect(throws: S3ClientError.self) { _ = try await provider.fetch() }
    }
}
