import Foundation
@testable import S3Client
import Testing

/// The pieces of a SigV4 signature below the S3 examples: the canonical request (empty path,
/// repeated and padded headers, sorted query), AWS's generic test-suite vectors for the string
/// to sign and the signature, temporary credentials' session token, what changes a signature,
/// and the timestamp forms.
@Suite("SigV4: canonical requests, test-suite vectors and timestamps")
struct SigV4CanonicalRequestTests {
    /// AWS's SigV4 test suite signs at 2015-08-30T12:36:00Z for the service `service`.
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)
    static let suiteSigner = SigV4Signer(accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                         region: "us-east-1", service: "service")

    /// The canonical request hash and signature of `request` at the suite's date.
    static func suiteSignature(_ request: SigV4Signer.Request) -> (canonical: String, stringToSign: String, signature: String) {
        let canonical = suiteSigner.canonicalRequest(request).text
        let stringToSign = suiteSigner.stringToSign(canonicalRequest: canonical, at: SigV4Timestamp(suiteDate))
        return (canonical, stringToSign, suiteSigner.signature(of: stringToSign, on: "20150830"))
    }

    /// A request of the suite: GET with Host and X-Amz-Date and `extra` headers.
    static func suiteRequest(path: String = "/", query: [(name: String, value: String)] = [],
                             extra: [(name: String, value: String)] = []) -> SigV4Signer.Request {
        SigV4Signer.Request(method: "GET", path: path, query: query,
                            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")] + extra,
                            payloadHash: SigV4Signer.emptyPayloadHash)
    }

    // MARK: - AWS test-suite vectors

    @Test("get-vanilla: the string to sign and signature match AWS's test suite")
    func getVanilla() {
        let signed = Self.suiteSignature(Self.suiteRequest())
        #expect(signed.stringToSign == """
            AWS4-HMAC-SHA256
            20150830T123600Z
            20150830/us-east-1/service/aws4_request
            bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
            """)
        #expect(signed.signature == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test("get-vanilla-query-order-key-case: parameters given out of order sort by name, upper case first")
    func queryOrder() {
        let signed = Self.suiteSignature(Self.suiteRequest(query: [("Param2", "value2"), ("Param1", "value1")]))
        #expect(signed.canonical.split(separator: "\n", omittingEmptySubsequences: false)[2] == "Param1=value1&Param2=value2")
        #expect(signed.signature == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")
    }

    @Test("get-header-value-trim: padding is trimmed and inner runs of spaces collapse, inside quotes too")
    func headerValueTrim() {
        let signed = Self.suiteSignature(Self.suiteRequest(extra: [("My-Header1", " value1"), ("My-Header2", "\"a   b   c\"")]))
        #expect(signed.canonical.contains("\nmy-header1:value1\nmy-header2:\"a b c\"\n"))
        #expect(signed.signature == "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736")
    }

    @Test("get-header-key-duplicate: a header given three times is one line, its values comma-joined in order")
    func duplicateHeaderKeys() {
        let signed = Self.suiteSignature(Self.suiteRequest(extra: [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")]))
        #expect(signed.canonical.contains("\nmy-header1:value2,value2,value1\n"))
        #expect(signed.canonical.contains("\nhost;my-header1;x-amz-date\n"))
        #expect(signed.signature == "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea")
    }

    // MARK: - Canonical request details

    @Test("an empty path is signed as /")
    func emptyPath() {
        let canonical = Self.suiteSigner.canonicalRequest(Self.suiteRequest(path: "")).text
        #expect(canonical.hasPrefix("GET\n/\n\n"))
        #expect(canonical == Self.suiteSigner.canonicalRequest(Self.suiteRequest(path: "/")).text)
    }

    @Test("the path is signed exactly as given: already encoded, never encoded again nor normalised")
    func pathAsGiven() {
        let canonical = Self.suiteSigner.canonicalRequest(Self.suiteRequest(path: "/bucket/a%20b//./c%2Fd")).text
        #expect(canonical.hasPrefix("GET\n/bucket/a%20b//./c%2Fd\n"))
    }

    @Test("header names that differ only in case are one header, in the order given")
    func headerNamesFoldCase() {
        let canonical = Self.suiteSigner.canonicalRequest(Self.suiteRequest(extra: [("X-Amz-Meta-Tag", "a"), ("x-amz-meta-TAG", "b")]))
        #expect(canonical.text.contains("\nx-amz-meta-tag:a,b\n"))
        #expect(canonical.signedHeaders == "host;x-amz-date;x-amz-meta-tag")
    }

    @Test("tabs at either end of a header value are trimmed; an empty value keeps its line")
    func tabsAndEmptyValues() {
        let canonical = Self.suiteSigner.canonicalRequest(Self.suiteRequest(extra: [("X-Tabbed", "\tvalue\t"), ("X-Empty", "")]))
        #expect(canonical.text.contains("\nx-empty:\n"))
        #expect(canonical.text.contains("\nx-tabbed:value\n"))
        #expect(canonical.signedHeaders == "host;x-amz-date;x-empty;x-tabbed")
    }

    @Test("a query value with reserved characters is encoded in the canonical request")
    func queryEncodedInCanonicalRequest() {
        let canonical = Self.suiteSigner.canonicalRequest(Self.suiteRequest(query: [("prefix", "photos/2024 ü"), ("uploads", "")])).text
        #expect(canonical.split(separator: "\n", omittingEmptySubsequences: false)[2] == "prefix=photos%2F2024%20%C3%BC&uploads=")
    }

    @Test("the method is signed as given and the payload hash closes the canonical request")
    func methodAndPayload() {
        let request = SigV4Signer.Request(method: "PUT", path: "/b/k", headers: [("Host", "h")], payloadHash: SigV4Signer.unsignedPayload)
        let canonical = Self.suiteSigner.canonicalRequest(request).text
        #expect(canonical == "PUT\n/b/k\n\nhost:h\n\nhost\nUNSIGNED-PAYLOAD")
    }

    // MARK: - sign(_:at:)

    @Test("temporary credentials add x-amz-security-token, sign it, and give AWS's signature for it")
    func sessionToken() throws {
        let signer = SigV4Signer(credentials: S3Credentials(accessKeyID: "ASIATEMP", secretAccessKey: "SECRET", sessionToken: "TOKEN/with+chars="),
                                 region: "eu-west-1")
        let request = SigV4Signer.Request(method: "GET", path: "/bucket/a%20b.jpg", query: [("versionId", "3")],
                                          headers: [("Host", "s3.example.com:9000")], payloadHash: SigV4Signer.emptyPayloadHash)
        let added = signer.sign(request, at: Date(timeIntervalSince1970: 1_709_251_199))
        #expect(added.map(\.name) == ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "Authorization"])
        #expect(added[2].value == "TOKEN/with+chars=")
        #expect(added[3].value == "AWS4-HMAC-SHA256 Credential=ASIATEMP/20240229/eu-west-1/s3/aws4_request, "
            + "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "
            + "Signature=9e18f411da75315f34092a51ec964497f10c8f7b1ea229402c6b9504f1ed5489")
    }

    @Test("long-term credentials add no session token")
    func noSessionToken() {
        let signer = SigV4Signer(credentials: S3Credentials(accessKeyID: "AKIA", secretAccessKey: "SECRET"), region: "us-east-1")
        let added = signer.sign(Self.suiteRequest(), at: Self.suiteDate)
        #expect(added.map(\.name) == ["x-amz-date", "x-amz-content-sha256", "Authorization"])
        #expect(!(added.last?.value.contains("x-amz-security-token") ?? true))
    }

    @Test("a signer from credentials signs exactly as one from the same keys")
    func credentialsInitMatchesKeys() {
        let fromKeys = SigV4Signer(accessKey: "AKIA", secretKey: "SECRET", region: "ap-south-1")
        let fromCredentials = SigV4Signer(credentials: S3Credentials(accessKeyID: "AKIA", secretAccessKey: "SECRET"), region: "ap-south-1")
        #expect(fromKeys.sign(Self.suiteRequest(), at: Self.suiteDate).map(\.value)
            == fromCredentials.sign(Self.suiteRequest(), at: Self.suiteDate).map(\.value))
        #expect(fromCredentials.service == "s3")
    }

    @Test("the same request signed twice at the same second gives the same headers")
    func deterministic() {
        let signer = SigV4Signer(accessKey: "AKIA", secretKey: "SECRET", region: "us-east-1")
        let first = signer.sign(Self.suiteRequest(), at: Self.suiteDate)
        let second = signer.sign(Self.suiteRequest(), at: Self.suiteDate.addingTimeInterval(0.75))
        #expect(first.map(\.value) == second.map(\.value), "fractions of a second do not change the signature")
    }

    @Test("the secret, region, service, date, path, query, a header and the payload hash each change the signature")
    func everyInputIsSigned() {
        func signature(_ signer: SigV4Signer, _ request: SigV4Signer.Request, at date: Date = Self.suiteDate) -> String {
            String(signer.sign(request, at: date).last!.value.suffix(64))
        }
        let signer = SigV4Signer(accessKey: "AKIA", secretKey: "SECRET", region: "us-east-1")
        let base = Self.suiteRequest()
        var signatures = [signature(signer, base)]
        signatures.append(signature(SigV4Signer(accessKey: "AKIA", secretKey: "SECRET2", region: "us-east-1"), base))
        signatures.append(signature(SigV4Signer(accessKey: "AKIA", secretKey: "SECRET", region: "us-east-2"), base))
        signatures.append(signature(SigV4Signer(accessKey: "AKIA", secretKey: "SECRET", region: "us-east-1", service: "sts"), base))
        signatures.append(signature(signer, base, at: Self.suiteDate.addingTimeInterval(1)))
        signatures.append(signature(signer, Self.suiteRequest(path: "/other")))
        signatures.append(signature(signer, Self.suiteRequest(query: [("a", "1")])))
        signatures.append(signature(signer, Self.suiteRequest(extra: [("Range", "bytes=0-1")])))
        var unsigned = base
        unsigned.payloadHash = SigV4Signer.unsignedPayload
        signatures.append(signature(signer, unsigned))
        #expect(Set(signatures).count == signatures.count)
        #expect(signatures.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
    }

    @Test("the access key id is named in the credential, never the secret")
    func authorizationNamesAccessKeyOnly() throws {
        let signer = SigV4Signer(accessKey: "AKIAPUBLIC", secretKey: "TopSecretValue", region: "us-east-1")
        let authorization = try #require(signer.sign(Self.suiteRequest(), at: Self.suiteDate).last?.value)
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIAPUBLIC/20150830/us-east-1/s3/aws4_request, SignedHeaders="))
        #expect(!authorization.contains("TopSecretValue"))
    }

    // MARK: - Timestamps and hex

    @Test("timestamps are UTC, the second rounded down", arguments: [
        (0.0, "19700101T000000Z", "19700101"),
        (1_709_251_199.999, "20240229T235959Z", "20240229"),
        (946_684_799.5, "19991231T235959Z", "19991231"),
        (4_102_444_800.0, "21000101T000000Z", "21000101"),
        (-1.0, "19691231T235959Z", "19691231"),
        (-0.25, "19691231T235959Z", "19691231"),
    ])
    func timestamps(seconds: Double, dateTime: String, date: String) {
        let stamp = SigV4Timestamp(Date(timeIntervalSince1970: seconds))
        #expect(stamp.dateTime == dateTime)
        #expect(stamp.date == date)
    }

    @Test("bytes print as two lower-case hex digits each")
    func hexString() {
        #expect([UInt8]().hexString == "")
        #expect([0x00, 0x0F, 0xA0, 0xFF].hexString == "000fa0ff")
        #expect(Array(0...255 as ClosedRange<UInt8>).hexString.count == 512)
    }
}
