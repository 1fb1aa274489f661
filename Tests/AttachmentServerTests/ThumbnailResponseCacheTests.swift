@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Thumbnail response cache", .timeLimit(.minutes(2)))
struct ThumbnailResponseCacheTests {
    static func entry(_ bytes: Int) -> ThumbnailResponseCache.Entry {
        .init(body: ByteBuffer(repeating: 1, count: bytes), mediaType: "image/jpeg", created: .now)
    }

    static func key(_ n: Int, size: Int = 200) -> ThumbnailResponseCache.Key {
        .init(attachment: AttachmentID(rawValue: "a\(n)"), hash: "h\(n)", size: size)
    }

    @Test("the least recently used entries go first past the byte limit")
    func evictsLeastRecentlyUsed() {
        let cache = ThumbnailResponseCache(byteLimit: 8_000)
        for n in 0..<8 { cache.insert(Self.entry(1_000), for: Self.key(n)) }
        #expect(cache.entry(for: Self.key(0)) != nil)  // 0 is now the most recently used
        cache.insert(Self.entry(1_000), for: Self.key(8))
        #expect(cache.entry(for: Self.key(1)) == nil)
        #expect(cache.entry(for: Self.key(0)) != nil)
        #expect(cache.byteCount <= 8_000)
    }

    @Test("expired entries are not served")
    func expiredEntriesAreDropped() {
        let cache = ThumbnailResponseCache(timeToLive: .zero)
        cache.insert(Self.entry(100), for: Self.key(1))
        #expect(cache.entry(for: Self.key(1)) == nil)
        #expect(cache.byteCount == 0)
    }

    @Test("removing an attachment drops all of its sizes")
    func removeDropsEverySize() {
        let cache = ThumbnailResponseCache()
        cache.insert(Self.entry(100), for: Self.key(1, size: 200))
        cache.insert(Self.entry(100), for: Self.key(1, size: 400))
        cache.insert(Self.entry(100), for: Self.key(2))
        cache.removeAll(of: AttachmentID(rawValue: "a1"))
        #expect(cache.entry(for: Self.key(1, size: 200)) == nil && cache.entry(for: Self.key(1, size: 400)) == nil)
        #expect(cache.entry(for: Self.key(2)) != nil)
        #expect(cache.byteCount == 100)
    }

    @Test("a repeated hash-addressed thumbnail is served from the cache, and not after a purge")
    func routeUsesAndInvalidatesTheCache() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            let url = try #require(photo.thumbnailUrl) + "&size=200"
            let first = try await client.execute(uri: url, method: .get)
            let second = try await client.execute(uri: url, method: .get)
            #expect(first.status == .ok && second.status == .ok)
            #expect(first.body == second.body)
            #expect(second.headers[.eTag] == first.headers[.eTag])
            let revalidated = try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: try #require(first.headers[.eTag])])
            #expect(revalidated.status == .notModified)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"attach_thumbnail_requests_total{result="cache_hit"} 1"#))

            #expect(try await client.execute(uri: "/api/attachments/\(photo.id)?purge=true", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: url, method: .get).status == .notFound)
        }
    }
}
