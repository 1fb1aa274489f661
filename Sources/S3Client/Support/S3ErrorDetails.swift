import Foundation
import NIOCore

/// What an S3 error answer says: its status and, when the body is S3 error XML
/// (`<Error><Code>…</Code><Message>…</Message></Error>`), the code and message.
struct S3ErrorDetails: Sendable, Equatable {
    let status: Int
    let code: String?
    let message: String?

    init(status: Int, body: ByteBuffer?) {
        self.status = status
        if let body, body.readableBytes > 0,
           let root = try? S3XMLElement.parse(Data(body.readableBytesView)), root.name == "Error" {
            code = root.text(of: "Code")
            message = root.text(of: "Message")
        } else {
            code = nil
            message = nil
        }
    }

    init(status: Int, code: String?, message: String?) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The typed error for this answer to a request on `key` (nil: on the bucket).
    func error(bucket: String, key: String?) -> S3ClientError {
        switch (status, code) {
        case (_, "NoSuchKey"):
            return .noSuchKey(bucket: bucket, key: key ?? "")
        case (_, "NoSuchBucket"):
            return .noSuchBucket(bucket)
        case (404, nil) where key != nil:
            return .noSuchKey(bucket: bucket, key: key ?? "")
        case (403, _), (_, "AccessDenied"), (_, "SignatureDoesNotMatch"), (_, "InvalidAccessKeyId"):
            return .accessDenied(s3Code: code, message: message)
        default:
            return .badStatus(code: status, s3Code: code, message: message)
        }
    }
}
