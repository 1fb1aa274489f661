@testable import AttachmentServer
import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TestSupport

/// The paths a hostile peer was asked for.
final class AskedPaths: Sendable {
    let paths = Mutex<[String]>([])
    func add(_ path: String) { paths.withLock { $0.append(path) } }
    var all: [String] { paths.withLock { $0 } }
}

/// A peer that answers every thumbnail request, by attachment or by content, with a forged
/// picture, and announces two attachments of its own: one with a photo of its own, one with
/// the very content an honest peer's attachment has (so it may ask for that content too).
struct ForgingPeer {
    static let note = "77777777-7777-4777-8777-777777777777"
    static let own = "88888888-8888-4888-8888-888888888888"
    static let sameContent = "99999999-9999-4999-8999-999999999999"

    let forged: Data
    let photo: Data
    let photoHash: String
    let honestPhoto: Data
    let honestHash: String
    let asked = AskedPaths()

    static func attachment(_ id: String, hash: String, byteCount: Int, position: Int) -> [String: Any] {
        ["kind": "attachment", "attachment": [
            "id": id, "noteID": note, "position": position, "blobHash": hash, "byteCount": byteCount, "mediaType": "image/jpeg",
            "filename": "photo-\(position).jpg", "image": ["width": 2560, "height": 1920, "orientation": 1], "metadata": [:] as [String: String],
            "createdAt": HostilePeer.now, "updatedAt": HostilePeer.now, "clock": HostilePeer.clock(),
        ] as [String: Any]]
    }

    func router() -> Router<BasicRequestContext> {
        let peer = self
        let router = Router()
        router.get("sync/changes") { request, _ -> Response in
            peer.asked.add(request.uri.description)
            let since = Int64(request.uri.queryParameters.get("since") ?? "0") ?? 0
            let changes: [[String: Any]] = since > 0 ? [] : [
                HostilePeer.note(Self.note, title: "the forger's note"),
                Self.attachment(Self.own, hash: peer.photoHash, byteCount: peer.photo.count, position: 0),
                Self.attachment(Self.sameContent, hash: peer.honestHash, byteCount: peer.honestPhoto.count, position: 1),
            ]
            let batch: [String: Any] = ["peerID": "forging-peer", "changes": changes, "nextSequence": 1, "hasMore": false]
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(data: try JSONSerialization.data(withJSONObject: batch))))
        }
        router.get("blobs/sha256/:hash") { request, context -> Response in
            peer.asked.add(request.uri.description)
            let hash = context.parameters.get("hash") ?? ""
            let bytes = hash == peer.photoHash ? peer.photo : hash == peer.honestHash ? peer.honestPhoto : Data()
            return Response(status: bytes.isEmpty ? .notFound : .ok, body: .init(byteBuffer: ByteBuffer(data: bytes)))
        }
        let forgery: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            peer.asked.add(request.uri.description)
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(data: peer.forged)))
        }
        router.get("blobs/sha256/:hash/thumbnail", use: forgery)
        router.get("api/attachments/:id/thumbnail", use: forgery)
        return router
    }
}

@Suite("A peer's thumbnail is provisional", .serialized, .timeLimit(.minutes(3)))
struct PeerThumbnailTrustTests {
    /// A real, small picture that is not the one it claims to show: a 64 px render of another photo.
    static func forgedPicture() async throws -> Data {
        let directory = try TemporaryDirectory("forger")
        let store = try await AttachmentStore.create(at: directory.appending("store"))
        let note = try await store.createNote(title: "forgery")
        let other = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Aqua.jpg"))
        return try await store.thumbnail(for: other.id, maxPixelSize: 64).data
    }

    @Test("a peer forging every thumbnail: its picture is shown only for its own record while the original is remote, never once the original is here, never for another peer's attachment")
    func forgedThumbnailsAreProvisional() async throws {
        let honest = try ServerFixture()
        let honestStore = try await honest.store()
        let honestNote = try await honestStore.createNote(title: "the honest peer's trip")
        let honestPhoto = try Corpus.file("good/Dune.jpg")
        let fromHonest = try await honestStore.addAttachment(to: honestNote.id, fromFile: honestPhoto)
        let ownPhoto = try Corpus.file("special/baseline.jpg")
        let forger = ForgingPeer(forged: try await Self.forgedPicture(), photo: try Data(contentsOf: ownPhoto), photoHash: try Files.sha256(ownPhoto),
                                 honestPhoto: try Data(contentsOf: honestPhoto), honestHash: fromHonest.blobHash.rawValue)
        let own = AttachmentID(rawValue: ForgingPeer.own)
        let sameContent = AttachmentID(rawValue: ForgingPeer.sameContent)

        try await LiveServerTests.serve(honest) { honestPort, _ in
            try await HostilePeer.serve(forger.router()) { forgerURL in
                let honestURL = try #require(URL(string: "http://127.0.0.1:\(honestPort)"))
                var local = try ServerFixture()
                local.configuration.peers = [honestURL, forgerURL]
                let peers = [Peer(url: honestURL), Peer(url: forgerURL)]
                let fetcher = BlobFetcher(peers: peers)
                var storeConfiguration = AttachmentStore.Configuration()
                storeConfiguration.remoteBlobSource = fetcher
                let store = try await AttachmentStore.create(at: local.configuration.storeDirectory, configuration: storeConfiguration)
                var sync = PeerSyncService.Configuration(peers: peers)
                sync.interval = .milliseconds(200)
                sync.fetchMode = .thumbnails
                let service = PeerSyncService(store: store, fetcher: fetcher, configuration: sync)
                let syncing = Task { try await service.run() }
                defer { syncing.cancel() }

                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    let rounds = service.ledger.snapshot.map(\.rounds)
                    if rounds.count == 2, rounds.allSatisfy({ $0 >= 2 }), try await store.allAttachments().count == 3,
                       await store.hasCachedThumbnail(for: try await store.attachment(own), maxPixelSize: 200) {
                        break
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                syncing.cancel()
                _ = await syncing.result

                // While the originals are remote: the forger's picture shows for its own records only.
                let forOwn = try await store.thumbnail(for: own, maxPixelSize: 200)
                #expect(forOwn.isProvisional && max(forOwn.width, forOwn.height) <= 64, "the forger's own record shows its picture, provisionally")
                let forSameContent = try await store.thumbnail(for: sameContent, maxPixelSize: 200)
                #expect(forSameContent.isProvisional && max(forSameContent.width, forSameContent.height) <= 64)
                let forHonest = try await store.thumbnail(for: fromHonest.id, maxPixelSize: 200)
                #expect(forHonest.isProvisional, "the honest peer's own thumbnail, asked of it alone")
                #expect(max(forHonest.width, forHonest.height) == 200 && forHonest.data != forSameContent.data,
                        "the forged picture is never shown for the honest peer's attachment")
                #expect(!forger.asked.all.contains { $0.contains(fromHonest.id.rawValue) || $0.hasPrefix("/api/") },
                        "the forger learnt an attachment id: \(forger.asked.all)")
                #expect(try await store.attachment(own).availability == .remote)

                try await local.test { client in
                    let uri = "/api/attachments/\(own)/thumbnail?size=200&v=\(forger.photoHash)"
                    let provisional = try await client.execute(uri: uri, method: .get)
                    #expect(provisional.status == .ok)
                    #expect(provisional.headers[.eTag] == "\"\(forger.photoHash)-peer-200\"")
                    #expect(provisional.headers[.cacheControl]?.contains("immutable") == false, "a peer's picture is never cached for good")

                    // The verified original arrives: from now on only our own render is served.
                    let original = try await client.execute(uri: "/api/attachments/\(own)/original", method: .get)
                    #expect(original.status == .ok)
                    #expect(Data(buffer: original.body) == forger.photo)
                    for _ in 0..<2 {  // the second from the response cache
                        let ours = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: provisional.headers[.eTag] ?? ""])
                        #expect(ours.status == .ok)
                        #expect(ours.headers[.eTag] == "\"\(forger.photoHash)-200\"")
                        #expect(Data(buffer: ours.body) != Data(buffer: provisional.body))
                    }

                    // The honest content arrives too: both records that hold it show our render.
                    #expect(try await client.execute(uri: "/api/attachments/\(fromHonest.id)/original", method: .get).status == .ok)
                    let honestThumbnail = try await client.execute(uri: "/api/attachments/\(fromHonest.id)/thumbnail?size=200", method: .get)
                    let sameContentThumbnail = try await client.execute(uri: "/api/attachments/\(sameContent)/thumbnail?size=200", method: .get)
                    #expect(honestThumbnail.headers[.eTag] == "\"\(forger.honestHash)-200\"")
                    #expect(Data(buffer: sameContentThumbnail.body) == Data(buffer: honestThumbnail.body))
                    #expect(Data(buffer: sameContentThumbnail.body) != forSameContent.data)
                }
                for id in [own, sameContent, fromHonest.id] {
                    let thumbnail = try await store.thumbnail(for: id, maxPixelSize: 200)
                    #expect(!thumbnail.isProvisional && max(thumbnail.width, thumbnail.height) == 200, "\(id)")
                }
                let peerCopies = local.configuration.storeDirectory.appending(path: "cache/thumbs/peer/\(forger.photoHash.prefix(2))/\(forger.photoHash)")
                #expect(!FileManager.default.fileExists(atPath: peerCopies.path(percentEncoded: false)), "the peer's copies are dropped")
            }
        }
    }

    @Test("a peer's thumbnail larger than the limit, or not an image, is refused and nothing is kept")
    func oversizedOrBrokenThumbnailsAreRefused() async throws {
        let peer = try ServerFixture()
        let peerStore = try await peer.store()
        let note = try await peerStore.createNote(title: "remote")
        let photo = try await peerStore.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        let local = try ServerFixture()
        let store = try await local.store()
        _ = try await store.apply(try await peerStore.changes(since: 0))
        let remote = try await store.attachment(photo.id)
        await #expect(throws: AttachmentStore.Error.self) {
            try await store.storeThumbnail(Data(count: AttachmentStore.maxPeerThumbnailBytes + 1), for: remote, maxPixelSize: 200)
        }
        await #expect(throws: AttachmentStore.Error.self) {
            try await store.storeThumbnail(Data("<svg onload=alert(1)>".utf8), for: remote, maxPixelSize: 200)
        }
        #expect(await !store.hasCachedThumbnail(for: remote, maxPixelSize: 200))
    }

    @Test("a sync-scoped token reads a thumbnail by content hash, of content held here only, and no other route of the API")
    func syncScopeReadsThumbnailsByHash() async throws {
        var fixture = try ServerFixture(token: "full-token-0123456789abcdef")
        fixture.configuration.syncToken = "sync-token-0123456789abcdef"
        let store = try await fixture.store()
        let note = try await store.createNote(title: "held here")
        let photo = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        try await fixture.test { client in
            let sync: HTTPFields = [.authorization: "Bearer sync-token-0123456789abcdef"]
            let byHash = try await client.execute(uri: "/blobs/sha256/\(photo.blobHash)/thumbnail?size=200", method: .get, headers: sync)
            #expect(byHash.status == .ok)
            #expect(byHash.headers[.contentType] == "image/jpeg")
            let byID = try await client.execute(uri: "/api/attachments/\(photo.id)/thumbnail?size=200", method: .get, headers: sync)
            #expect([.unauthorized, .forbidden].contains(byID.status), "the sync scope does not reach the API")
            let absent = try await client.execute(uri: "/blobs/sha256/\(String(repeating: "a", count: 64))/thumbnail?size=200", method: .get,
                                                  headers: sync)
            #expect(absent.status == .notFound)
            let none = try await client.execute(uri: "/blobs/sha256/\(photo.blobHash)/thumbnail?size=200", method: .get)
            #expect(none.status == .unauthorized)
        }
    }
}
