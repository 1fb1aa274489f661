@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite("Thumbnails API", .timeLimit(.minutes(3)))
struct ThumbnailAPITests {
    /// Width and height of a JPEG or PNG, read from its header.
    static func pixelSize(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            func be32(_ i: Int) -> Int { bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
            return (be32(16), be32(20))
        }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }

    @Test("each allowed size gives an image whose longest side is that size", arguments: [200, 400, 800, 2048])
    func thumbnailHasRequestedSize(size: Int) async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("good/Elephants_3840x2160.jpg", to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(photo.id)/thumbnail?size=\(size)", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/jpeg")
            let (width, height) = try #require(Self.pixelSize(Data(buffer: response.body)))
            #expect(max(width, height) == size)
        }
    }

    @Test("the thumbnail address from the attachment is immutable and revalidates to 304")
    func thumbnailCaching() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/orientation-6.jpg", to: note.id)
            let url = try #require(photo.thumbnailUrl) + "&size=200"
            let first = try await client.execute(uri: url, method: .get)
            #expect(first.status == .ok)
            #expect(first.headers[.cacheControl] == "private, max-age=31536000, immutable")
            let tag = try #require(first.headers[.eTag])
            let again = try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            // EXIF orientation 6 is applied: the stored image is landscape, the thumbnail portrait.
            let (width, height) = try #require(Self.pixelSize(Data(buffer: first.body)))
            #expect(height > width)
        }
    }

    @Test("a size outside the allowed set is a 400", arguments: ["100", "201", "4096", "big", "-1"])
    func otherSizesAreRefused(size: String) async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(photo.id)/thumbnail?size=\(size)", method: .get)
            #expect(response.status == .badRequest)
            #expect(JSON.errorCode(response) == "invalid_size")
        }
    }

    @Test("files that are not images have no thumbnail (404 not_an_image); damaged images cannot make one (422)",
          arguments: [("bad/script.svg", 404, "not_an_image"), ("bad/text.png", 404, "not_an_image"), ("bad/truncated.jpg", 422, "image_unreadable")])
    func nonImagesHaveNoThumbnail(path: String, status: Int, code: String) async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let file = try await client.upload(path, to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(file.id)/thumbnail?size=200", method: .get)
            #expect(response.status.code == status)
            #expect(JSON.errorCode(response) == code)
        }
    }

    @Test("the thumbnail of an unknown attachment is a 404")
    func unknownThumbnail() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/attachments/00000000-0000-0000-0000-000000000000/thumbnail?size=200", method: .get)
            #expect(response.status == .notFound)
            #expect(JSON.errorCode(response) == "attachment_not_found")
        }
    }

    @Test("/metrics reports thumbnail requests, cache hits and misses, and queue depth")
    func thumbnailMetrics() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            for _ in 0..<2 { _ = try await client.execute(uri: "/api/attachments/\(photo.id)/thumbnail?size=400", method: .get) }
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(text.contains(#"attach_thumbnail_requests_total{result="ok"} 2"#))
            #expect(text.contains(#"attach_thumbnail_cache_hits{cache="memory"}"#))
            #expect(text.contains("attach_thumbnail_cache_misses"))
            #expect(text.contains("attach_thumbnail_queue_depth 0"))
        }
    }
}
