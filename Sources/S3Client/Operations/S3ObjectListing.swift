/// The objects of the bucket under a prefix, in key order, fetched page by page with
/// ListObjectsV2 and its continuation tokens as the iteration goes.
///
/// Each page is one request (retried like any idempotent request); memory holds one page.
///
/// ```swift
/// for try await object in s3.listObjects(prefix: "sha256/") { print(object.key, object.size) }
/// ```
public struct S3ObjectListing: AsyncSequence, Sendable {
    public typealias Element = S3ObjectInfo

    let client: S3Client
    let prefix: String
    let pageSize: Int

    /// Walks the pages of a listing.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let listing: S3ObjectListing
        var page: [S3ObjectInfo] = []
        var index = 0
        var continuationToken: String?
        var finished = false
        /// How many pages have been requested so far.
        public private(set) var pagesFetched = 0

        /// The next object, fetching the next page when this one is used up.
        /// - Throws: ``S3ClientError``, or `CancellationError`.
        public mutating func next() async throws -> S3ObjectInfo? {
            while index == page.count {
                guard !finished else { return nil }
                let result = try await listing.client.listObjectsPage(
                    prefix: listing.prefix, pageSize: listing.pageSize, continuationToken: continuationToken)
                pagesFetched += 1
                page = result.objects
                index = 0
                continuationToken = result.nextContinuationToken
                finished = result.nextContinuationToken == nil
            }
            defer { index += 1 }
            return page[index]
        }
    }

    /// An iterator that starts with the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(listing: self) }
}
