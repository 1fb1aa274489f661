import Foundation
@testable import S3Client
import Testing

/// The credentials document of the container and instance metadata endpoints, the field checks
/// behind it, and when the credentials it yields may still be used.
@Suite("S3 credentials: the credentials document and its expiry")
struct CredentialDocumentTests {
    static func credentials(_ json: String) throws(S3ClientError) -> S3Credentials {
        try CredentialDocument.credentials(in: Data(json.utf8), source: "test endpoint")
    }

    /// The reason `json` is refused with, `nil` when it is accepted.
    static func refusal(_ json: String) -> String? {
        do {
            _ = try credentials(json)
            return nil
        } catch {
            guard case .credentialsUnavailable(let source, let reason) = error else { return "\(error)" }
            #expect(source == "test endpoint")
            return reason
        }
    }

    static let newYear2030 = Date(timeIntervalSince1970: 1_893_456_000)

    @Test("a plain ISO 8601 expiry and one with fractional seconds are both read to the instant")
    func expiryFormats() throws {
        let plain = try Self.credentials(#"{"AccessKeyId":"ASIA","SecretAccessKey":"s","Token":"t","Expiration":"2030-01-01T00:00:00Z"}"#)
        #expect(plain == S3Credentials(accessKeyID: "ASIA", secretAccessKey: "s", sessionToken: "t", expiration: Self.newYear2030))
        let fractional = try #require(CredentialFields.parseDate("2030-01-01T00:00:00.250Z"))
        #expect(abs(fractional.timeIntervalSince(Self.newYear2030) - 0.25) < 0.001)
        #expect(CredentialFields.parseDate("2030-01-01T00:00:00Z") == Self.newYear2030)
    }

    @Test("an expiry that is not an ISO 8601 instant is refused, naming it", arguments: [
        "", "2030-01-01", "tomorrow", "1893456000", "2030-13-01T00:00:00Z",
    ])
    func badExpiry(expiration: String) {
        #expect(CredentialFields.parseDate(expiration) == nil)
        let reason = Self.refusal(#"{"AccessKeyId":"ASIA","SecretAccessKey":"s","Expiration":"\#(expiration)"}"#)
        #expect(reason == "the expiry \(expiration) is not an ISO 8601 date")
    }

    @Test("a document without an expiry is long-term credentials; unknown fields are ignored")
    func noExpiry() throws {
        let credentials = try Self.credentials(#"{"AccessKeyId":"AKIA","SecretAccessKey":"s","RoleArn":"arn:x","Type":"AWS-HMAC"}"#)
        #expect(credentials == S3Credentials(accessKeyID: "AKIA", secretAccessKey: "s"))
    }

    @Test("a missing or empty access key id or secret is refused", arguments: [
        #"{}"#, #"{"SecretAccessKey":"s"}"#, #"{"AccessKeyId":"A"}"#,
        #"{"AccessKeyId":"","SecretAccessKey":"s"}"#, #"{"AccessKeyId":"A","SecretAccessKey":""}"#,
    ])
    func missingKeys(json: String) {
        #expect(Self.refusal(json) == "the answer has no AccessKeyId or SecretAccessKey")
    }

    @Test("Code Success is accepted; any other code is refused with the endpoint's message")
    func failureCodes() throws {
        let success = try Self.credentials(#"{"Code":"Success","AccessKeyId":"A","SecretAccessKey":"s"}"#)
        #expect(success.accessKeyID == "A")
        #expect(Self.refusal(#"{"Code":"AssumeRoleUnauthorizedAccess","Message":"no role","AccessKeyId":"A","SecretAccessKey":"s"}"#)
            == "the endpoint reports AssumeRoleUnauthorizedAccess: no role")
        #expect(Self.refusal(#"{"Code":"success","AccessKeyId":"A","SecretAccessKey":"s"}"#) == "the endpoint reports success: ")
    }

    @Test("an empty token is no token, a missing one too")
    func emptyToken() throws {
        #expect(try Self.credentials(#"{"AccessKeyId":"A","SecretAccessKey":"s","Token":""}"#).sessionToken == nil)
        #expect(try Self.credentials(#"{"AccessKeyId":"A","SecretAccessKey":"s"}"#).sessionToken == nil)
    }

    @Test("what is not a JSON object of strings is refused as not a credentials document", arguments: [
        "", "null", "[]", #""text""#, #"{"AccessKeyId":42,"SecretAccessKey":"s"}"#,
    ])
    func notADocument(body: String) {
        #expect(Self.refusal(body) == "the answer (\(body.utf8.count) bytes) is not a credentials document")
    }

    @Test("credentials without an expiry are always usable")
    func longTermAlwaysUsable() {
        let credentials = S3Credentials(accessKeyID: "A", secretAccessKey: "s")
        #expect(credentials.isUsable(at: .distantFuture))
        #expect(credentials.isUsable(at: Date(), margin: .seconds(1_000_000)))
    }

    @Test("temporary credentials are usable only while more than the margin is left before they expire")
    func usableAroundTheMargin() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func expiring(in seconds: TimeInterval) -> S3Credentials {
            S3Credentials(accessKeyID: "A", secretAccessKey: "s", sessionToken: "t", expiration: now.addingTimeInterval(seconds))
        }
        #expect(expiring(in: 301).isUsable(at: now))
        #expect(!expiring(in: 300).isUsable(at: now))
        #expect(!expiring(in: 299).isUsable(at: now))
        #expect(expiring(in: 1).isUsable(at: now, margin: .zero))
        #expect(!expiring(in: 0).isUsable(at: now, margin: .zero))
        #expect(!expiring(in: -3600).isUsable(at: now, margin: .zero))
        #expect(expiring(in: 61).isUsable(at: now, margin: .seconds(60)))
        #expect(!expiring(in: 60).isUsable(at: now, margin: .seconds(60)))
    }

    @Test("the description names the key, a token and the expiry, never the secret or the token")
    func descriptionHidesSecrets() {
        let temporary = S3Credentials(accessKeyID: "ASIAKEY", secretAccessKey: "very-secret-value",
                                      sessionToken: "session-token-value", expiration: Self.newYear2030)
        #expect(temporary.description == "access key ASIAKEY with a session token, expiring 2030-01-01T00:00:00Z")
        #expect(!temporary.description.contains("very-secret-value") && !temporary.description.contains("session-token-value"))
        let longTerm = S3Credentials(accessKeyID: "AKIAKEY", secretAccessKey: "very-secret-value")
        #expect(longTerm.description == "access key AKIAKEY")
        #expect("\(longTerm)".contains("very-secret-value") == false)
    }

    @Test("a document that does not decode is refused without quoting it: it may hold a secret")
    func refusalNeverQuotesTheAnswer() {
        let body = Data(#"{"AccessKeyId":"A","SecretAccessKey":"hunter2","Expiration":123}"#.utf8)
        #expect {
            _ = try CredentialDocument.credentials(in: body, source: "x")
        } throws: { error in
            guard case S3ClientError.credentialsUnavailable(_, let reason) = error else { return false }
            return !reason.contains("hunter2") && reason.contains("\(body.count) bytes")
        }
    }

    @Test("the margin counts to the fraction of a second")
    func marginFraction() {
        let now = Date()
        let credentials = S3Credentials(accessKeyID: "A", secretAccessKey: "s", expiration: now.addingTimeInterval(1.2))
        #expect(!credentials.isUsable(at: now, margin: .milliseconds(1500)))
        #expect(credentials.isUsable(at: now, margin: .milliseconds(1000)))
    }
}
