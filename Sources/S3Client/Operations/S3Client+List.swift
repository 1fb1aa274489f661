import Foundation
import NIOCore

extension S3Client {
    /// The objects whose keys start with `prefix`, in key order, `pageSize` keys per request
    /// (S3 caps a page at 1000).
    public func listObjects(prefix: String = "", pageSize: Int = 1000) -> S3ObjectListing {
        S3ObjectListing(client: self, prefix: prefix, pageSize: max(1, min(pageSize, 1000)))
    }

    /// One page of ListObjectsV2: the objects, and the token of the next page when there is one.
    /// - Throws: ``S3ClientError``, or `CancellationError`.
    func listObjectsPage(prefix: String, pageSize: Int, continuationToken: String?) async throws
        -> (objects: [S3ObjectInfo], nextContinuationToken: String?) {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("max-keys", "\(pageSize)")]
        if !prefix.isEmpty { query.append(("prefix", prefix)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try await send(S3Request(.GET, key: nil, query: query))
        let root = try await Self.xml(of: response)
        guard root.name == "ListBucketResult" else {
            throw S3ClientError.invalidResponse("ListObjectsV2 answered <\(root.name)>, not <ListBucketResult>")
        }
        let objects = try root.children(named: "Contents").map { contents throws(S3ClientError) in
            guard let key = contents.text(of: "Key"), let size = contents.text(of: "Size").flatMap({ Int64($0) }) else {
                throw .invalidResponse("a listed object has no Key or Size")
            }
            let etag = (contents.text(of: "ETag") ?? "").trimmingCharacters(in: .init(charactersIn: "\""))
            let modified = contents.text(of: "LastModified").flatMap(Self.parseTimestamp)
            return S3ObjectInfo(key: key, size: size, etag: etag, lastModified: modified)
        }
        guard root.text(of: "IsTruncated") == "true" else { return (objects, nil) }
        guard let next = root.text(of: "NextContinuationToken"), !next.isEmpty, next != continuationToken else {
            throw S3ClientError.invalidResponse("a truncated listing came without a new NextContinuationToken")
        }
        return (objects, next)
    }

    /// Reads an ISO 8601 timestamp as ListObjectsV2 writes it, with or without fractional seconds.
    static func parseTimestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
