import Foundation
import NIOHTTP1
@testable import S3Client
import Testing

/// ListObjectsV2 answers as the listing reads them: objects with their keys (entities decoded),
/// sizes, unquoted ETags and dates; pages followed by continuation token; the query each page
/// is asked with; and answers refused — another root element, an object without key or size,
/// a truncated page without a new token (which would loop), malformed XML.
@Suite("S3 listing: reading ListObjectsV2 pages", .timeLimit(.minutes(3)))
struct ListObjectsPageTests {
    static func page(_ contents: String, truncated: Bool = false, next: String? = nil) -> FakeAWSEndpoint.Answer {
        .xml(#"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
            + "<Name>bucket</Name><IsTruncated>\(truncated)</IsTruncated>"
            + (next.map { "<NextContinuationToken>\($0)</NextContinuationToken>" } ?? "")
            + contents + "</ListBucketResult>")
    }

    static func object(_ key: String, size: String = "1", etag: String = "&quot;d41d8cd98f00b204e9800998ecf8427e&quot;",
                       modified: String? = "2024-02-29T23:59:58.125Z") -> String {
        "<Contents><Key>\(key)</Key>" + (modified.map { "<LastModified>\($0)</LastModified>" } ?? "")
            + "<ETag>\(etag)</ETag><Size>\(size)</Size><StorageClass>STANDARD</StorageClass></Contents>"
    }

    /// Every object of the listing, and how many pages it took.
    static func list(_ s3: S3Client, prefix: String = "", pageSize: Int = 1000) async throws -> (objects: [S3ObjectInfo], pages: Int) {
        var iterator = s3.listObjects(prefix: prefix, pageSize: pageSize).makeAsyncIterator()
        var objects: [S3ObjectInfo] = []
        while let object = try await iterator.next() { objects.append(object) }
        return (objects, iterator.pagesFetched)
    }

    /// The reason listing is refused with as an invalid response, nil when it succeeds.
    static func refusal(_ s3: S3Client) async -> String? {
        do {
            _ = try await list(s3)
            return nil
        } catch S3ClientError.invalidResponse(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test("one page gives its objects in order: key, size, ETag without quotes, and the modification date")
    func onePage() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.page(
            Self.object("sha256/a&amp;b c.jpg", size: "4096") + Self.object("sha256/z", size: "0", etag: "\"multi-3\"", modified: "2024-02-29T23:59:58Z"))])
        let listed = try await Self.list(try server.client(), prefix: "sha256/")
        #expect(listed.objects == [
            S3ObjectInfo(key: "sha256/a&b c.jpg", size: 4096, etag: "d41d8cd98f00b204e9800998ecf8427e",
                         lastModified: Date(timeIntervalSince1970: 1_709_251_198.125)),
            S3ObjectInfo(key: "sha256/z", size: 0, etag: "multi-3", lastModified: Date(timeIntervalSince1970: 1_709_251_198)),
        ])
        #expect(listed.pages == 1)
        #expect(server.requests == ["GET /bucket?list-type=2&max-keys=1000&prefix=sha256%2F"])
        try await server.stop()
    }

    @Test("pages are followed by their continuation tokens, sent encoded, until one is not truncated")
    func pagesFollowed() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [
            Self.page(Self.object("a") + Self.object("b"), truncated: true, next: "token/1+="),
            Self.page(Self.object("c"), truncated: true, next: "token-2"),
            Self.page(Self.object("d")),
        ])
        let listed = try await Self.list(try server.client(), pageSize: 2)
        #expect(listed.objects.map(\.key) == ["a", "b", "c", "d"])
        #expect(listed.pages == 3)
        #expect(server.requests == [
            "GET /bucket?list-type=2&max-keys=2",
            "GET /bucket?continuation-token=token%2F1%2B%3D&list-type=2&max-keys=2",
            "GET /bucket?continuation-token=token-2&list-type=2&max-keys=2",
        ])
        try await server.stop()
    }

    @Test("an empty page ends an empty listing; an empty truncated page leads on to the next")
    func emptyPages() async throws {
        let empty = try await ScriptedHTTPServer.start(answers: [Self.page("")])
        #expect(try await Self.list(try empty.client()).objects.isEmpty)
        try await empty.stop()

        let gap = try await ScriptedHTTPServer.start(answers: [Self.page("", truncated: true, next: "t1"), Self.page(Self.object("late"))])
        let listed = try await Self.list(try gap.client())
        #expect(listed.objects.map(\.key) == ["late"])
        #expect(listed.pages == 2)
        try await gap.stop()
    }

    @Test("the page size is clamped to S3's 1 to 1000 keys", arguments: [(0, 1), (-5, 1), (1, 1), (999, 999), (1000, 1000), (5000, 1000)])
    func pageSizeClamped(requested: Int, sent: Int) async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.page("")])
        _ = try await Self.list(try server.client(), pageSize: requested)
        #expect(server.requests == ["GET /bucket?list-type=2&max-keys=\(sent)"])
        try await server.stop()
    }

    @Test("a missing or unreadable date is no date, not a failure", arguments: [nil, "", "last Tuesday", "2024-02-29"])
    func missingDates(modified: String?) async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.page(Self.object("k", modified: modified))])
        let listed = try await Self.list(try server.client())
        #expect(listed.objects.map(\.lastModified) == [nil])
        try await server.stop()
    }

    @Test("an object without a key, or without a size that is a whole number, is refused", arguments: [
        "<Contents><Size>1</Size></Contents>",
        "<Contents><Key>k</Key></Contents>",
        "<Contents><Key>k</Key><Size>one</Size></Contents>",
        "<Contents><Key>k</Key><Size>1.5</Size></Contents>",
        "<Contents><Key>k</Key><Size> 1</Size></Contents>",
    ])
    func objectWithoutKeyOrSize(contents: String) async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.page(contents)])
        #expect(await Self.refusal(try server.client()) == "a listed object has no Key or Size")
        try await server.stop()
    }

    @Test("a truncated page without a token, with an empty one, or repeating the last one is refused instead of looping")
    func truncatedWithoutNewToken() async throws {
        for answers in [[Self.page(Self.object("a"), truncated: true)],
                        [Self.page(Self.object("a"), truncated: true, next: "")],
                        [Self.page(Self.object("a"), truncated: true, next: "same"), Self.page(Self.object("b"), truncated: true, next: "same")]] {
            let server = try await ScriptedHTTPServer.start(answers: answers)
            #expect(await Self.refusal(try server.client()) == "a truncated listing came without a new NextContinuationToken")
            #expect(server.requests.count == answers.count, "no request is sent after the refusal")
            try await server.stop()
        }
    }

    @Test("an answer whose root is not ListBucketResult is refused, naming it")
    func wrongRoot() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.xml("<ListAllMyBucketsResult><Buckets/></ListAllMyBucketsResult>")])
        #expect(await Self.refusal(try server.client()) == "ListObjectsV2 answered <ListAllMyBucketsResult>, not <ListBucketResult>")
        try await server.stop()
    }

    @Test("a success answer that is not XML is refused as malformed")
    func malformedPage() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .ok, body: "<html><body>proxy error")])
        let reason = try #require(await Self.refusal(try server.client()))
        #expect(reason.hasPrefix("malformed XML ("))
        try await server.stop()
    }

    @Test("an error status while listing is the typed error, not a parse failure")
    func errorStatusWhileListing() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.xml("<Error><Code>NoSuchBucket</Code><Message>gone</Message></Error>", status: .notFound)])
        await #expect(throws: S3ClientError.noSuchBucket("bucket")) { _ = try await Self.list(try server.client()) }
        try await server.stop()
    }
}
