@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Attachments whose bytes are on a peer: the `fetch` progress in their JSON, and their
/// placeholder tile in the web UI.
@Suite("Remote attachments", .timeLimit(.minutes(3)))
struct RemoteAttachmentTests {
    /// A store holding one note with `corpusPath` attached, and a second, empty fixture that
    /// has pulled its records (so the attachment is there with its bytes on the first).
    static func syncedPair(_ corpusPath: String) async throws -> (peer: ServerFixture, local: ServerFixture, attachment: Synced) {
        let peer = try ServerFixture()
        let peerStore = try await peer.store()
        let note = try await peerStore.createNote(title: "From the phone")
        let original = try await peerStore.addAttachment(to: note.id, fromFile: try Corpus.file(corpusPath))
        let local = try ServerFixture()
        _ = try await local.store().apply(try await peerStore.changes(since: 0))
        let attachment = try await local.store().attachment(original.id)
        #expect(attachment.availability == .remote)
        return (peer, local, Synced(id: attachment.id.rawValue, noteID: attachment.noteID.rawValue, byteCount: attachment.byteCount))
    }

    /// What the tests need of the synced attachment.
    struct Synced {
        let id: String
        let noteID: String
        let byteCount: Int64
    }

    @Test("an attachment's JSON carries the fetch's progress while its bytes come from a peer, and not before or after")
    func fetchProgressWhileFetching() async throws {
        let pair = try await Self.syncedPair("special/large-16mb.jpg")
        let attachment = pair.attachment
        var peer = pair.peer
        peer.configuration.peerBandwidth = 4 << 20  // 16 MB take about 4 s
        try await LiveServerTests.serve(peer) { port, _ in
            var local = pair.local
            local.configuration.peers = [try #require(URL(string: "http://127.0.0.1:\(port)"))]
            try await local.test { client in
                let uri = "/api/attachments/\(attachment.id)"
                let before = try await client.execute(uri: uri, method: .get)
                #expect(try JSON.decode(AttachmentResource.self, before).available == false)
                #expect(!String(buffer: before.body).contains("\"fetch\""))

                async let thumbnail = client.execute(uri: uri + "/thumbnail?size=200", method: .get)
                var seen: [AttachmentResource.FetchProgress] = []
                let deadline = ContinuousClock.now + .seconds(60)
                while seen.count < 2, ContinuousClock.now < deadline {
                    let resource = try JSON.decode(AttachmentResource.self, try await client.execute(uri: uri, method: .get))
                    if let fetch = resource.fetch {
                        #expect(resource.available == false)
                        seen.append(fetch)
                    } else if resource.available {
                        break
                    }
                    try await Task.sleep(for: .milliseconds(200))
                }
                let progress = try #require(seen.first, "no poll saw the transfer under way")
                #expect(seen.allSatisfy { $0.total == attachment.byteCount && (0...$0.total).contains($0.received) })
                #expect(progress.received < progress.total)
                #expect(seen.map(\.received) == seen.map(\.received).sorted(), "progress never goes back")

                #expect(try await thumbnail.status == .ok)
                let after = try await client.execute(uri: uri, method: .get)
                #expect(try JSON.decode(AttachmentResource.self, after).available)
                #expect(!String(buffer: after.body).contains("\"fetch\""))
                let list = try JSON.decode(AttachmentList.self, try await client.execute(uri: "/api/notes/\(attachment.noteID)/attachments", method: .get))
                #expect(list.attachments.map(\.fetch) == [nil])
            }
        }
    }

    @Test("a server without peers lists a remote attachment as not available, with no fetch")
    func noFetchWithoutPeers() async throws {
        let (_, local, attachment) = try await Self.syncedPair("special/baseline.jpg")
        try await local.test { client in
            let response = try await client.execute(uri: "/api/attachments/\(attachment.id)", method: .get)
            let resource = try JSON.decode(AttachmentResource.self, response)
            #expect(!resource.available && resource.fetch == nil && resource.state == .remote)
            #expect(!String(buffer: response.body).contains("\"fetch\""))
        }
    }

    @Test("a note page shows a remote photo as a placeholder with a progress ring, a state badge and its thumbnail address for the script")
    func remoteTileHasRing() async throws {
        let (_, local, attachment) = try await Self.syncedPair("special/baseline.jpg")
        try await local.test { client in
            let html = String(buffer: try await client.execute(uri: "/notes/\(attachment.noteID)", method: .get).body)
            let tile = try #require(html.firstMatch(of: /<li class="tile"[^\n]*?<\/li>/)).output
            #expect(tile.contains(#"data-availability="remote""#))
            #expect(tile.contains(#"<span class="badge" data-state="remote""#))
            #expect(tile.contains(#"role="progressbar""#) && tile.contains(#"aria-valuenow="0""#))
            #expect(tile.contains(#"aria-label="Fetching baseline.jpg from a peer""#))
            #expect(tile.contains(#"data-src="/api/attachments/\#(attachment.id)/thumbnail?v="#))
            #expect(!tile.contains(" src="), "the script requests the thumbnail, a few at a time")
            #expect(!tile.contains("style="), "no inline style: the page's CSP forbids it")
            #expect(html.firstMatch(of: /<script(?![^>]*\ssrc=)[^>]*>/) == nil)
        }
    }

    @Test("a local photo's tile has no ring")
    func localTileHasNoRing() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            _ = try await client.upload("special/baseline.jpg", to: note.id)
            let html = String(buffer: try await client.execute(uri: "/notes/\(note.id)", method: .get).body)
            #expect(!html.contains("data-availability") && !html.contains(#"class="fetch""#) && !html.contains(#"class="badge""#))
            #expect(html.contains(#"loading="lazy""#) && html.contains(" src=\"/api/attachments/"))
        }
    }
}
