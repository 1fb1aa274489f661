@testable import AttachmentServer
import AttachmentStore
import Foundation
import Testing
import TestSupport

/// A server's continuous sync asks for a long poll, and a peer that does not hold it (or that
/// sends the same change again and again) is asked no more often than every `--sync-interval`.
@Suite("Sync pacing against a peer that never holds", .timeLimit(.minutes(2)))
struct SyncPacingTests {
    static let noteID = "77777777-7777-4777-8777-777777777777"

    @Test("a peer answering every long poll at once with the same change is asked about once an interval, not in a loop")
    func peerThatNeverHoldsIsPaced() async throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let change: [String: Any] = ["kind": "note", "note": [
            "id": Self.noteID, "title": "the same change again", "body": "", "createdAt": now, "updatedAt": now,
            "clock": String(format: "%013lld-000000-impatient-peer", now),
        ]]
        let batch = ScriptedHTTPServer.Response.json(["peerID": "impatient-peer", "changes": [change], "nextSequence": 1, "hasMore": false])
        let peer = try ScriptedHTTPServer { request in
            request.target.hasPrefix("/sync/changes") ? batch : .json(["error": "no"], status: 404)
        }
        var fixture = try ServerFixture()
        fixture.configuration.peers = [try #require(URL(string: peer.url))]
        fixture.configuration.syncInterval = .seconds(1)
        try await LiveServerTests.serve(fixture) { _, _ in
            try await Task.sleep(for: .milliseconds(3_500))
        }
        let asked = peer.requests.filter { $0.method == "GET" && $0.target.hasPrefix("/sync/changes") }
        #expect(asked.count >= 2, "it was asked: \(asked.count)")
        #expect(asked.count <= 7, "about once a second after the first round, not as fast as it answers: \(asked.count)")
        #expect(asked.allSatisfy { $0.target.contains("wait=25") }, "every round asks to be held: \(asked.map(\.target))")
        let store = try await fixture.store()
        #expect(try await store.note(NoteID(rawValue: Self.noteID)).title == "the same change again")
    }
}
