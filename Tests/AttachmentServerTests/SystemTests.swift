@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Health, metrics and static files", .timeLimit(.minutes(2)))
struct SystemTests {
    @Test("/health answers ok")
    func healthIsOK() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
        }
    }

    @Test("/metrics counts requests by route and status, and upload bytes")
    func metricsCountRequests() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            _ = try await client.upload("special/baseline.jpg", to: note.id)
            _ = try await client.execute(uri: "/api/notes/00000000-0000-0000-0000-000000000000", method: .get)
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: response.body)
            #expect(text.contains(#"http_requests_total{route="/api/notes",method="POST",status="201"} 1"#))
            #expect(text.contains(#"http_requests_total{route="/api/notes/{id}",method="GET",status="404"} 1"#))
            #expect(text.contains("http_request_duration_seconds_bucket"))
            let size = try Data(contentsOf: try TestSupport.Corpus.file("special/baseline.jpg")).count
            #expect(text.contains("attach_upload_bytes_total \(size)"))
            #expect(text.contains("attach_uploads_in_progress 0"))
        }
    }

    @Test("static files are served with a version that makes them immutable")
    func staticFilesAreVersioned() async throws {
        try await ServerFixture().test { client in
            let page = String(buffer: try await client.execute(uri: "/", method: .get).body)
            let match = try #require(page.firstMatch(of: /src="(\/static\/app\.js\?v=[0-9a-f]+)"/))
            let script = try await client.execute(uri: String(match.1), method: .get)
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.cacheControl] == "private, max-age=31536000, immutable")
            let tag = try #require(script.headers[.eTag])
            let again = try await client.execute(uri: "/static/app.js", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(try await client.execute(uri: "/static/missing.js", method: .get).status == .notFound)
        }
    }

    @Test("/openapi.yaml serves the document")
    func openAPIIsServed() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).hasPrefix("openapi: 3.1.0"))
        }
    }
}

import TestSupport
