import Foundation
@testable import S3Client
import Testing

/// Known-answer tests: the example requests of AWS's "Signature Calculations for the
/// Authorization Header" page for S3 (single chunk), signed at their fixed date.
@Suite("SigV4 signer")
struct SigV4SignerTests {
    static let exampleDate = Date(timeIntervalSince1970: 1_369_353_600) // 2013-05-24T00:00:00Z
    let signer = SigV4Signer(accessKey: "AKIAIOSFODNN7EXAMPLE",
                             secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")

    func authorization(_ request: SigV4Signer.Request) -> String? {
        signer.sign(request, at: Self.exampleDate).first { $0.name == "Authorization" }?.value
    }

    @Test("the GET object example gives AWS's canonical request, string to sign and signature")
    func getObjectExample() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/test.txt",
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")],
            payloadHash: SigV4Signer.emptyPayloadHash)
        let added = signer.sign(request, at: Self.exampleDate)
        #expect(added.first { $0.name == "x-amz-date" }?.value == "20130524T000000Z")
        #expect(added.first { $0.name == "x-amz-content-sha256" }?.value == SigV4Signer.emptyPayloadHash)

        var withDate = request
        withDate.headers += [("x-amz-date", "20130524T000000Z"), ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)]
        let canonical = signer.canonicalRequest(withDate)
        #expect(canonical.text == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        let stringToSign = signer.stringToSign(canonicalRequest: canonical.text, at: SigV4Timestamp(Self.exampleDate))
        #expect(stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(authorization(request) == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("the PUT object example signs an encoded key ($ as %24), a Date header and a payload hash")
    func putObjectExample() {
        let path = "/" + S3URIEncoding.encode("test$file.text", keepSlash: true)
        #expect(path == "/test%24file.text")
        let request = SigV4Signer.Request(
            method: "PUT", path: path,
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                      ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
            payloadHash: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        #expect(authorization(request)?.hasSuffix(
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
            + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd") == true)
    }

    @Test("the GET bucket lifecycle example signs a query parameter without a value")
    func lifecycleExample() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/", query: [("lifecycle", "")],
            headers: [("Host", "examplebucket.s3.amazonaws.com")], payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(authorization(request)?.hasSuffix("Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543") == true)
    }

    @Test("the list objects example sorts its query parameters")
    func listObjectsExample() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: [("Host", "examplebucket.s3.amazonaws.com")], payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(authorization(request)?.hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test("header values are trimmed and inner spaces collapsed; names are lower-cased and sorted")
    func headerCanonicalisation() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/k", headers: [("X-Amz-Meta-B", "  two   words "), ("Host", "h"), ("x-amz-meta-a", "1")],
            payloadHash: SigV4Signer.unsignedPayload)
        let canonical = signer.canonicalRequest(request)
        #expect(canonical.signedHeaders == "host;x-amz-meta-a;x-amz-meta-b")
        #expect(canonical.text.contains("\nx-amz-meta-b:two words\n"))
        #expect(canonical.text.hasSuffix("\nUNSIGNED-PAYLOAD"))
    }

    @Test("keys are encoded byte by byte, keeping only unreserved characters and slashes", arguments: [
        ("with space.jpg", "with%20space.jpg"),
        ("a+b=c.jpg", "a%2Bb%3Dc.jpg"),
        ("nested/dir/photo.jpg", "nested/dir/photo.jpg"),
        ("ünï/フォト.jpg", "%C3%BCn%C3%AF/%E3%83%95%E3%82%A9%E3%83%88.jpg"),
        ("100%~_-.", "100%25~_-."),
        ("q?x#y&z", "q%3Fx%23y%26z"),
    ])
    func keyEncoding(key: String, encoded: String) {
        #expect(S3URIEncoding.encode(key, keepSlash: true) == encoded)
    }

    @Test("query values encode slashes, and parameters sort by encoded name")
    func queryEncoding() {
        let query = S3URIEncoding.canonicalQuery([("prefix", "a b/c+d"), ("continuation-token", "x=="), ("uploads", "")])
        #expect(query == "continuation-token=x%3D%3D&prefix=a%20b%2Fc%2Bd&uploads=")
    }
}
