import Crypto
import Foundation
@testable import S3Client

/// Checks a request an S3 endpoint received the way S3 does: recomputes its SigV4 signature
/// from what arrived (the signed headers, the path, the payload hash) with `secret`, and
/// compares it with the `Authorization` header.
enum SignatureCheck {
    /// What the `Authorization` header of `request` says, and whether its signature is right
    /// for `secret`.
    static func verify(_ request: FakeAWSEndpoint.Request, secret: String) -> (accessKey: String, signedHeaders: [String], valid: Bool)? {
        guard let authorization = request.header("Authorization"), authorization.hasPrefix("AWS4-HMAC-SHA256 ") else { return nil }
        var fields: [String: String] = [:]
        for part in authorization.dropFirst("AWS4-HMAC-SHA256 ".count).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        guard let credential = fields["Credential"], let signed = fields["SignedHeaders"], let signature = fields["Signature"],
              let dateTime = request.header("x-amz-date"), let payloadHash = request.header("x-amz-content-sha256") else { return nil }
        let scope = credential.split(separator: "/").map(String.init)
        guard scope.count == 5 else { return nil }
        let names = signed.split(separator: ";").map(String.init)
        let headers = names.compactMap { name in request.header(name).map { (name: name, value: $0) } }
        let signer = SigV4Signer(accessKey: scope[0], secretKey: secret, region: scope[2], service: scope[3])
        let canonical = signer.canonicalRequest(SigV4Signer.Request(
            method: request.method, path: request.path, headers: headers, payloadHash: payloadHash))
        let stringToSign = ["AWS4-HMAC-SHA256", dateTime, scope[1...].joined(separator: "/"),
                            SHA256.hash(data: Data(canonical.text.utf8)).map { String(format: "%02x", $0) }.joined()]
            .joined(separator: "\n")
        let expected = signer.signature(of: stringToSign, on: scope[1])
        return (scope[0], names, headers.count == names.count && expected == signature)
    }
}
