import Foundation
import S3Client
import Testing

@Suite("S3 listing", .needsS3, .timeLimit(.minutes(2)))
struct ListObjectsTests {
    let s3: S3Client
    let prefix = S3TestEnvironment.uniquePrefix("list")

    init() throws { s3 = try S3TestEnvironment.client() }

    @Test("a listing walks every page with continuation tokens, in key order, under its prefix only")
    func paginatedListing() async throws {
        let keys = (0..<7).map { prefix + "photo-\($0).jpg" }
        for (index, key) in keys.enumerated() { try await s3.putObject(key: key, data: Array(repeating: UInt8(index), count: index + 1)) }
        try await s3.putObject(key: prefix.dropLast() + "-sibling", data: [0])

        var iterator = s3.listObjects(prefix: prefix, pageSize: 3).makeAsyncIterator()
        var listed: [S3ObjectInfo] = []
        while let object = try await iterator.next() { listed.append(object) }
        #expect(listed.map(\.key) == keys)
        #expect(listed.map(\.size) == (1...7).map(Int64.init))
        #expect(iterator.pagesFetched == 3)

        try await s3.deleteAll(under: prefix)
        try await s3.deleteObject(key: prefix.dropLast() + "-sibling")
        var remaining = 0
        for try await _ in s3.listObjects(prefix: prefix) { remaining += 1 }
        #expect(remaining == 0)
    }
}
