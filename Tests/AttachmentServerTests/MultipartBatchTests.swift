@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// A multipart upload is one batch (issue 13: group commit): its files are staged as they
/// arrive and added together, so a form that breaks partway adds none of them.
@Suite("Multipart uploads commit together", .timeLimit(.minutes(3)))
struct MultipartBatchTests {
    /// One complete part of a form with boundary `b`.
    static func part(_ filename: String, _ text: String) -> String {
        "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\nContent-Type: text/plain\r\n\r\n\(text)\r\n"
    }

    @Test("a form of three files adds all three in order; a form cut off in its third file adds none of its files")
    func formCommitsAllOrNothing() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote()
            let headers: HTTPFields = [.contentType: "multipart/form-data; boundary=b"]
            let whole = Self.part("a.txt", "first") + Self.part("b.txt", "second") + Self.part("c.txt", "third") + "--b--\r\n"
            let response = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post,
                                                    headers: headers, body: ByteBuffer(string: whole))
            #expect(response.status == .created)
            let list = try JSON.decode(AttachmentList.self, response)
            #expect(list.attachments.map(\.filename) == ["a.txt", "b.txt", "c.txt"])
            #expect(list.attachments.map(\.position) == [0, 1, 2])

            let cut = Self.part("d.txt", "fourth") + Self.part("e.txt", "fifth")
                + "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\n\r\nhalf a fi"
            let broken = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post,
                                                  headers: headers, body: ByteBuffer(string: cut))
            #expect(broken.status == .badRequest)
            #expect(JSON.errorCode(broken) == "invalid_multipart")
        }
        let store = try await fixture.store()
        #expect(try await store.allAttachments().map(\.filename).sorted() == ["a.txt", "b.txt", "c.txt"])
        let report = try await store.verify()
        #expect(report.isClean, "\(report)")
        #expect(report.temporaryFiles == 0)
        #expect(report.unreferencedFiles == 0)
    }
}
