import Foundation
@testable import S3Client
import Synchronization
import Testing
import TestSupport

/// The AWS credential sources, each against a fake endpoint the test runs (STS, the container
/// endpoint, the instance metadata service, and the S3 bucket that checks signatures).
@Suite("S3 credentials: the AWS default chain", .timeLimit(.minutes(3)))
struct CredentialSourceTests {
    /// An environment with no real AWS settings: the home directory is empty and the instance
    /// metadata service is off, so each test sees only what it sets.
    static func isolated(_ home: TemporaryDirectory, _ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": home.url.path(percentEncoded: false), "AWS_EC2_METADATA_DISABLED": "true"].merging(extra) { $1 }
    }

    /// A client of bucket `b` on `endpoint` with credentials from the default chain over `environment`.
    static func client(_ endpoint: FakeAWSEndpoint, _ environment: [String: String]) throws -> S3Client {
        var configuration = try S3Configuration(endpoint: URL(string: endpoint.url)!, bucket: "b",
                                                credentials: .awsDefaultChain(environment: environment))
        configuration.retry = S3RetryPolicy(maxAttempts: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1))
        return S3Client(configuration: configuration)
    }

    static func stsAnswer(key: String, secret: String, token: String, expires: Date) -> FakeAWSEndpoint.Answer {
        .xml("""
        <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
          <AssumeRoleWithWebIdentityResult>
            <Credentials><AccessKeyId>\(key)</AccessKeyId><SecretAccessKey>\(secret)</SecretAccessKey>
              <SessionToken>\(token)</SessionToken><Expiration>\(expires.formatted(.iso8601))</Expiration></Credentials>
          </AssumeRoleWithWebIdentityResult>
        </AssumeRoleWithWebIdentityResponse>
        """)
    }

    static func document(key: String, secret: String, token: String, expires: Date = .now.addingTimeInterval(3600)) -> FakeAWSEndpoint.Answer {
        .json(#"{"Code":"Success","AccessKeyId":"\#(key)","SecretAccessKey":"\#(secret)","Token":"\#(token)","Expiration":"\#(expires.formatted(.iso8601))"}"#)
    }

    /// The deletes the bucket received, each checked as S3 would with `secret`.
    static func signedDeletes(_ endpoint: FakeAWSEndpoint, secret: String) -> [(accessKey: String, token: String?, valid: Bool)] {
        endpoint.requests(under: "/b/").map { request in
            let check = SignatureCheck.verify(request, secret: secret)
            let tokenSigned = request.header("x-amz-security-token") == nil || check?.signedHeaders.contains("x-amz-security-token") == true
            return (check?.accessKey ?? "", request.header("x-amz-security-token"), (check?.valid ?? false) && tokenSigned)
        }
    }

    @Test("AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN sign requests, the token sent and signed")
    func environmentKeys() async throws {
        let home = try TemporaryDirectory("aws-home")
        let endpoint = try await FakeAWSEndpoint.start { _ in .init(status: .noContent) }
        let s3 = try Self.client(endpoint, Self.isolated(home, [
            "AWS_ACCESS_KEY_ID": "ASIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token",
        ]))
        try await s3.deleteObject(key: "photo.jpg")
        let deletes = Self.signedDeletes(endpoint, secret: "env-secret")
        #expect(deletes.count == 1)
        #expect(deletes.first?.accessKey == "ASIAENV" && deletes.first?.token == "env-token" && deletes.first?.valid == true)
        #expect(SignatureCheck.verify(endpoint.requests[0], secret: "another-secret")?.valid == false, "the check can fail")
        try await endpoint.stop()
    }

    @Test("S3_ACCESS_KEY and S3_SECRET_KEY are fixed keys; without them the AWS chain is used")
    func fixedKeysOrChain() throws {
        let base = ["S3_ENDPOINT": "http://127.0.0.1:9", "S3_BUCKET": "b", "AWS_REGION": "eu-central-1"]
        let fixed = try S3Configuration.fromEnvironment(base.merging(["S3_ACCESS_KEY": "k", "S3_SECRET_KEY": "s"]) { $1 })
        #expect(fixed.credentials == .fixed(S3Credentials(accessKeyID: "k", secretAccessKey: "s")))
        let chain = try S3Configuration.fromEnvironment(base)
        #expect(chain.credentials == .awsDefaultChain(environment: base))
        #expect(chain.region == "eu-central-1")
        #expect(chain.description.contains("the AWS default credential chain"))
    }

    @Test("a profile named by AWS_PROFILE is read from the credentials file, else the config file; credentials win")
    func sharedProfiles() async throws {
        let home = try TemporaryDirectory("aws-home")
        try FileManager.default.createDirectory(at: home.appending(".aws"), withIntermediateDirectories: true)
        try Data("""
        # keys for the default and work profiles
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default-secret

        [work]
        aws_access_key_id=AKIAWORK
        aws_secret_access_key=work-secret
        aws_session_token = work-token
        """.utf8).write(to: home.appending(".aws/credentials"))
        try Data("""
        [default]
        region = us-west-2
        [profile work]
        aws_access_key_id = AKIAIGNORED
        s3 =
          max_concurrent_requests = 20
        [profile other]
        ; only in the config file
        aws_access_key_id = AKIAOTHER
        aws_secret_access_key = other-secret
        """.utf8).write(to: home.appending(".aws/config"))
        let http = CredentialHTTP(client: S3Client.defaultHTTPClient)
        func credentials(_ profile: String?) async throws -> S3Credentials {
            var environment = Self.isolated(home)
            environment["AWS_PROFILE"] = profile
            return try await AWSDefaultCredentialChain(environment: environment, http: http).provider().fetch()
        }
        #expect(try await credentials(nil) == S3Credentials(accessKeyID: "AKIADEFAULT", secretAccessKey: "default-secret"))
        #expect(try await credentials("work") == S3Credentials(accessKeyID: "AKIAWORK", secretAccessKey: "work-secret", sessionToken: "work-token"))
        #expect(try await credentials("other") == S3Credentials(accessKeyID: "AKIAOTHER", secretAccessKey: "other-secret"))
        await #expect {
            _ = try await credentials("missing")
        } throws: { error in
            guard case S3ClientError.credentialsUnavailable(let source, _) = error else { return false }
            return source.contains("\"missing\"")
        }
    }

    @Test("files named by AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE replace ~/.aws; a malformed file is a typed error")
    func sharedFileLocations() async throws {
        let home = try TemporaryDirectory("aws-home")
        let file = home.appending("elsewhere")
        try Data("[default]\naws_access_key_id = AKIAELSEWHERE\naws_secret_access_key = s\n".utf8).write(to: file)
        let http = CredentialHTTP(client: S3Client.defaultHTTPClient)
        var environment = Self.isolated(home, ["AWS_SHARED_CREDENTIALS_FILE": file.path(percentEncoded: false)])
        #expect(try await AWSDefaultCredentialChain(environment: environment, http: http).provider().fetch().accessKeyID == "AKIAELSEWHERE")

        try Data("[default]\nthis line has no equals sign\n".utf8).write(to: file)
        #expect(throws: S3ClientError.self) { try AWSDefaultCredentialChain(environment: environment, http: http).provider() }
        try Data("[default]\naws_access_key_id = AKIANOSECRET\n".utf8).write(to: file)
        #expect(throws: S3ClientError.self) { try AWSDefaultCredentialChain(environment: environment, http: http).provider() }

        environment["AWS_SHARED_CREDENTIALS_FILE"] = home.appending("absent").path(percentEncoded: false)
        #expect {
            try AWSDefaultCredentialChain(environment: environment, http: http).provider()
        } throws: { error in
            guard case S3ClientError.credentialsUnavailable(let source, let reason) = error else { return false }
            return source == "the AWS default credential chain" && reason.contains("AWS_EC2_METADATA_DISABLED")
        }
    }

    @Test("environment keys win over a web identity and a profile")
    func chainOrder() throws {
        let home = try TemporaryDirectory("aws-home")
        let http = CredentialHTTP(client: S3Client.defaultHTTPClient)
        let environment = Self.isolated(home, [
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "s", "AWS_PROFILE": "missing",
            "AWS_WEB_IDENTITY_TOKEN_FILE": "/nonexistent", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r",
        ])
        #expect(try AWSDefaultCredentialChain(environment: environment, http: http).provider() is EnvironmentCredentials)
        var half = environment
        half["AWS_SECRET_ACCESS_KEY"] = nil
        #expect(throws: S3ClientError.self) { try AWSDefaultCredentialChain(environment: half, http: http).provider() }
    }

    @Test("a web identity token is exchanged at STS for a role's credentials, read anew and exchanged again before they expire")
    func webIdentity() async throws {
        let home = try TemporaryDirectory("aws-home")
        let tokenFile = home.appending("token")
        try Data("first-oidc-token\n".utf8).write(to: tokenFile)
        let exchanges = Mutex(0)
        let endpoint = try await FakeAWSEndpoint.start { request in
            guard request.path == "/sts" else { return .init(status: .noContent) }
            let n = exchanges.withLock { $0 += 1; return $0 }
            // The first credentials expire within the refresh margin, so the next request renews them.
            return Self.stsAnswer(key: "ASIASTS\(n)", secret: "sts-secret-\(n)", token: "sts-token-\(n)",
                                  expires: Date().addingTimeInterval(n == 1 ? 60 : 3600))
        }
        let s3 = try Self.client(endpoint, Self.isolated(home, [
            "AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile.path(percentEncoded: false), "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/photos",
            "AWS_ROLE_SESSION_NAME": "attach test", "AWS_ENDPOINT_URL_STS": endpoint.url + "/sts",
        ]))
        try await s3.deleteObject(key: "a.jpg")
        try Data("rotated-oidc-token".utf8).write(to: tokenFile)
        try await s3.deleteObject(key: "b.jpg")

        let sts = endpoint.requests(under: "/sts")
        #expect(sts.count == 2)
        #expect(sts.first?.method == "POST")
        #expect(sts.first?.form == [
            "Action": "AssumeRoleWithWebIdentity", "Version": "2011-06-15", "RoleArn": "arn:aws:iam::123456789012:role/photos",
            "RoleSessionName": "attach test", "WebIdentityToken": "first-oidc-token",
        ])
        #expect(sts.last?.form["WebIdentityToken"] == "rotated-oidc-token")
        let deletes = endpoint.requests(under: "/b/")
        #expect(deletes.map { $0.header("x-amz-security-token") } == ["sts-token-1", "sts-token-2"])
        #expect(SignatureCheck.verify(deletes[0], secret: "sts-secret-1")?.valid == true)
        #expect(SignatureCheck.verify(deletes[1], secret: "sts-secret-2")?.valid == true)
        try await endpoint.stop()
    }

    @Test("a profile with role_arn and web_identity_token_file assumes the role at STS")
    func webIdentityFromProfile() async throws {
        let home = try TemporaryDirectory("aws-home")
        try Data("oidc".utf8).write(to: home.appending("token"))
        let config = home.appending("config")
        try Data("[profile ci]\nrole_arn = arn:aws:iam::1:role/ci\nweb_identity_token_file = \(home.appending("token").path(percentEncoded: false))\n".utf8)
            .write(to: config)
        let endpoint = try await FakeAWSEndpoint.start { _ in
            Self.stsAnswer(key: "ASIACI", secret: "ci-secret", token: "ci-token", expires: Date().addingTimeInterval(3600))
        }
        let environment = Self.isolated(home, ["AWS_PROFILE": "ci", "AWS_CONFIG_FILE": config.path(percentEncoded: false),
                                               "AWS_ENDPOINT_URL_STS": endpoint.url])
        let credentials = try await AWSDefaultCredentialChain(environment: environment, http: CredentialHTTP(client: S3Client.defaultHTTPClient))
            .provider().fetch()
        #expect(credentials.accessKeyID == "ASIACI" && credentials.sessionToken == "ci-token")
        #expect(endpoint.requests.first?.form["RoleArn"] == "arn:aws:iam::1:role/ci")
        try await endpoint.stop()
    }

    @Test("the container endpoint is asked with the authorization token from its file; concurrent requests share one fetch")
    func containerEndpoint() async throws {
        let home = try TemporaryDirectory("aws-home")
        try Data("secret-auth-token\n".utf8).write(to: home.appending("auth"))
        let endpoint = try await FakeAWSEndpoint.start { request in
            guard request.path == "/v2/credentials/task" else { return .init(status: .noContent) }
            guard request.header("Authorization") == "secret-auth-token" else { return .init(status: .unauthorized) }
            return Self.document(key: "ASIATASK", secret: "task-secret", token: "task-token")
        }
        let s3 = try Self.client(endpoint, Self.isolated(home, [
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": endpoint.url + "/v2/credentials/task",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": home.appending("auth").path(percentEncoded: false),
        ]))
        try await withThrowingTaskGroup { group in
            for index in 0..<8 { group.addTask { try await s3.deleteObject(key: "k\(index)") } }
            try await group.waitForAll()
        }
        #expect(endpoint.requests(under: "/v2/").count == 1)
        let deletes = Self.signedDeletes(endpoint, secret: "task-secret")
        #expect(deletes.count == 8 && deletes.allSatisfy { $0.accessKey == "ASIATASK" && $0.token == "task-token" && $0.valid })
        try await endpoint.stop()
    }

    @Test("a container full URI over plain http to a host that is not loopback or the agent is refused", arguments: [
        "http://169.254.169.254/creds", "http://example.com/creds", "http://10.0.0.8/creds", "ftp://127.0.0.1/creds",
    ])
    func containerURIRefused(uri: String) throws {
        let home = try TemporaryDirectory("aws-home")
        #expect(throws: S3ClientError.self) {
            try AWSDefaultCredentialChain(environment: Self.isolated(home, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": uri]),
                                          http: CredentialHTTP(client: S3Client.defaultHTTPClient)).provider()
        }
    }

    @Test("the container relative URI is asked of the ECS agent's address, and the allowed plain-http hosts are exact")
    func containerAddresses() throws {
        let home = try TemporaryDirectory("aws-home")
        let http = CredentialHTTP(client: S3Client.defaultHTTPClient)
        let provider = try ContainerCredentials(environment: Self.isolated(home, ["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/abc"]), http: http)
        #expect(provider?.url == "http://169.254.170.2/v2/credentials/abc")
        #expect(ContainerCredentials.isAllowedPlainHTTPHost("127.0.0.1") && ContainerCredentials.isAllowedPlainHTTPHost("127.8.9.10"))
        #expect(ContainerCredentials.isAllowedPlainHTTPHost("[::1]") && ContainerCredentials.isAllowedPlainHTTPHost("169.254.170.23"))
        #expect(!ContainerCredentials.isAllowedPlainHTTPHost("127.0.0.1.evil.example") && !ContainerCredentials.isAllowedPlainHTTPHost("1270.0.0.1"))
    }

    @Test("the instance metadata service is used with an IMDSv2 session token, for the instance's role")
    func instanceMetadata() async throws {
        let home = try TemporaryDirectory("aws-home")
        let endpoint = try await FakeAWSEndpoint.start { request in
            switch (request.method, request.path) {
            case ("PUT", "/latest/api/token"):
                guard request.header("X-aws-ec2-metadata-token-ttl-seconds") != nil else { return .init(status: .badRequest) }
                return .init(body: "imds-session")
            case ("GET", let path) where path.hasPrefix("/latest/meta-data/"):
                guard request.header("X-aws-ec2-metadata-token") == "imds-session" else { return .init(status: .unauthorized) }
                if path == "/latest/meta-data/iam/security-credentials/" { return .init(body: "photo-server-role\n") }
                if path == "/latest/meta-data/iam/security-credentials/photo-server-role" {
                    return Self.document(key: "ASIAEC2", secret: "ec2-secret", token: "ec2-token")
                }
                return .init(status: .notFound)
            default:
                return .init(status: .noContent)
            }
        }
        var environment = Self.isolated(home, ["AWS_EC2_METADATA_SERVICE_ENDPOINT": endpoint.url])
        environment["AWS_EC2_METADATA_DISABLED"] = nil
        let s3 = try Self.client(endpoint, environment)
        try await s3.deleteObject(key: "photo.jpg")
        #expect(endpoint.requests(under: "/latest/").map { "\($0.method) \($0.path)" } == [
            "PUT /latest/api/token", "GET /latest/meta-data/iam/security-credentials/",
            "GET /latest/meta-data/iam/security-credentials/photo-server-role",
        ])
        let deletes = Self.signedDeletes(endpoint, secret: "ec2-secret")
        #expect(deletes.count == 1 && deletes[0].accessKey == "ASIAEC2" && deletes[0].valid)
        try await endpoint.stop()
    }

    @Test("credentials S3 calls expired are fetched again and the request sent once more")
    func expiredTokenRenewed() async throws {
        let home = try TemporaryDirectory("aws-home")
        let fetches = Mutex(0)
        let deletes = Mutex(0)
        let endpoint = try await FakeAWSEndpoint.start { request in
            if request.path == "/creds" {
                let n = fetches.withLock { $0 += 1; return $0 }
                return Self.document(key: "ASIA\(n)", secret: "secret-\(n)", token: "token-\(n)")
            }
            let n = deletes.withLock { $0 += 1; return $0 }
            return n == 1 ? .xml("<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>", status: .forbidden)
                : .init(status: .noContent)
        }
        let s3 = try Self.client(endpoint, Self.isolated(home, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": endpoint.url + "/creds"]))
        try await s3.deleteObject(key: "k")
        #expect(fetches.withLock { $0 } == 2)
        #expect(endpoint.requests(under: "/b/").map { $0.header("x-amz-security-token") } == ["token-1", "token-2"])
        try await endpoint.stop()
    }
}

/// The default chain against the real S3 server `make test` starts: its keys given as the AWS
/// variables a deployment sets, and as a profile.
@Suite("S3 credentials against a real server", .needsS3, .timeLimit(.minutes(3)))
struct CredentialChainLiveTests {
    @Test("keys from AWS_ACCESS_KEY_ID, or from a profile of ~/.aws/credentials, are accepted by a real S3 server")
    func chainAgainstRealServer() async throws {
        let base = S3TestEnvironment.environment
        guard let access = base["S3_ACCESS_KEY"], let secret = base["S3_SECRET_KEY"] else { return }
        let home = try TemporaryDirectory("aws-home")
        try FileManager.default.createDirectory(at: home.appending(".aws"), withIntermediateDirectories: true)
        try Data("[store]\naws_access_key_id = \(access)\naws_secret_access_key = \(secret)\n".utf8)
            .write(to: home.appending(".aws/credentials"))
        var withoutKeys = base
        for name in ["S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_ACCESS_KEY_FILE", "S3_SECRET_KEY_FILE"] { withoutKeys[name] = nil }
        withoutKeys["HOME"] = home.url.path(percentEncoded: false)
        withoutKeys["AWS_EC2_METADATA_DISABLED"] = "true"
        let environments = [
            withoutKeys.merging(["AWS_ACCESS_KEY_ID": access, "AWS_SECRET_ACCESS_KEY": secret]) { $1 },
            withoutKeys.merging(["AWS_PROFILE": "store"]) { $1 },
        ]
        for environment in environments {
            let configuration = try S3Configuration.fromEnvironment(environment)
            #expect(configuration.credentials == .awsDefaultChain(environment: environment))
            let s3 = S3Client(configuration: configuration)
            let key = S3TestEnvironment.uniquePrefix("chain") + "note.txt"
            _ = try await s3.putObject(key: key, data: Array("signed through the chain".utf8))
            #expect(try await s3.bytes(of: key) == Array("signed through the chain".utf8))
            try await s3.deleteObject(key: key)
        }
    }
}
