@testable import AttachmentServer
import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// A Live Photo through the API: one attachment whose JSON names its clip, the clip's bytes at
/// `/motion`, its playable copy at `videoUrl`, and both files in a note's zip; and by sync the
/// pair stays a pair, the clip's bytes moving only when someone asks.
@Suite("Live Photos through the API and sync", .serialized, .timeLimit(.minutes(3)))
struct LivePhotoRouteTests {
    static func live(_ name: String) throws -> URL { try Corpus.file("live/\(name)") }

    /// A store's note with the Live Photo IMG_0001, its clip added first.
    static func livePhoto(in store: AttachmentStore) async throws -> (note: NoteID, attachment: AttachmentID) {
        let note = try await store.createNote(title: "live")
        _ = try await store.addAttachment(to: note.id, fromFile: try live("IMG_0001.MOV"))
        return (note.id, try await store.addAttachment(to: note.id, fromFile: try live("IMG_0001.HEIC")).id)
    }

    @Test func theResourceNamesTheClipAndServesItsBytesAndItsPlayableCopy() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let (note, id) = try await Self.livePhoto(in: store)
        let photo = try await store.attachment(id)
        let motion = try #require(photo.motion)
        let clipBytes = try Data(contentsOf: try Self.live("IMG_0001.MOV"))
        let plain = try await store.addAttachment(to: note, fromFile: try Corpus.file("special/baseline.jpg"))
        try await fixture.test { client in
            let resource = try await client.execute(uri: "/api/attachments/\(photo.id)", method: .get)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: resource.body)) as? [String: Any])
            #expect(json["mediaType"] as? String == "image/heic")
            let clip = try #require(json["motion"] as? [String: Any])
            #expect(clip["filename"] as? String == "IMG_0001.MOV")
            #expect(clip["mediaType"] as? String == "video/quicktime")
            #expect(clip["hash"] as? String == "sha256:\(motion.blobHash)")
            #expect(clip["durationMilliseconds"] as? Int == 2500)
            #expect(clip["state"] as? String == "present")
            let address = try #require(clip["url"] as? String)
            #expect(address == "/api/attachments/\(photo.id)/motion?v=\(motion.blobHash)")
            #expect(json["videoUrl"] as? String == "/api/attachments/\(photo.id)/video?v=\(motion.blobHash)")
            #expect(try JSON.decode(AttachmentResource.self, resource).attachment.motion == motion)

            let whole = try await client.execute(uri: address, method: .get)
            #expect(whole.status == .ok)
            #expect(Data(buffer: whole.body) == clipBytes)
            #expect(whole.headers[.contentDisposition]?.contains("IMG_0001.MOV") == true)
            let part = try await client.execute(uri: address, method: .get, headers: [.range: "bytes=10-19"])
            #expect(part.status == .partialContent)
            #expect(Data(buffer: part.body) == clipBytes[10..<20])

            let playable = try await client.execute(uri: "/api/attachments/\(photo.id)/video", method: .get)
            #expect(playable.status == .ok)
            #expect(playable.headers[.contentType] == "video/mp4")

            let none = try await client.execute(uri: "/api/attachments/\(plain.id)/motion", method: .get)
            #expect(none.status == .notFound)
            #expect(String(buffer: none.body).contains("not_a_live_photo"))

            let zip = try await client.execute(uri: "/api/notes/\(note)/originals.zip", method: .get)
            let directory = try TemporaryDirectory("live-zip")
            let archive = directory.appending("live.zip")
            try Data(buffer: zip.body).write(to: archive)
            let files = try await ZipStreamTests.unpack(archive, in: directory)
            #expect(files["IMG_0001.HEIC"] == (try Data(contentsOf: try Self.live("IMG_0001.HEIC"))))
            #expect(files["IMG_0001.MOV"] == clipBytes)
            #expect(files.count == 3)
        }
    }

    @Test func aMotionPhotosTileSaysLiveAndItsVideoAddressPlaysTheClipInsideIt() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let note = try await store.createNote(title: "pixel")
        let photo = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("live/PXL_20240501_102030.MP.jpg"))
        try await fixture.test { client in
            let resource = try await client.execute(uri: "/api/attachments/\(photo.id)", method: .get)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: resource.body)) as? [String: Any])
            #expect(json["motion"] == nil, "one original: the clip is inside it")
            #expect((json["image"] as? [String: Any])?["embeddedVideoOffset"] as? Int == photo.image?.embeddedVideoOffset)
            let address = try #require(json["videoUrl"] as? String)
            let playable = try await client.execute(uri: address, method: .get)
            #expect(playable.status == .ok)
            #expect(playable.headers[.contentType] == "video/mp4")
            let page = try await client.execute(uri: "/notes/\(note.id)", method: .get)
            let html = String(buffer: page.body)
            #expect(html.contains("data-motion=\"\(address)\""))
            #expect(html.contains(">LIVE</span>"))
        }
    }

    @Test func byRecordSyncThePairStaysAPairAndTheClipComesWhenAsked() async throws {
        let peer = try ServerFixture()
        let peerStore = try await peer.store()
        let photo = try await peerStore.attachment(try await Self.livePhoto(in: peerStore).attachment)

        try await LiveServerTests.serve(peer) { port, _ in
            let (store, folder) = try await SyncingStore.pulling(fromPort: port, label: "live-sync") { store in
                (try? await store.attachment(photo.id))?.motion != nil
            }
            defer { _ = folder }

            let arrived = try await store.attachment(photo.id)
            #expect(arrived.motion?.blobHash == photo.motion?.blobHash, "one attachment, with its clip")
            #expect(arrived.motion?.state == .remote, "the clip's bytes stay on the peer until asked for")
            #expect(arrived.motion?.filename == "IMG_0001.MOV")
            #expect(arrived.availability == .remote)
            #expect(try await store.attachments(of: photo.noteID).count == 1)

            let clip = try await store.motionOriginal(of: photo.id)
            #expect(try await clip.data() == (try Data(contentsOf: try Self.live("IMG_0001.MOV"))))
            #expect(try await store.attachment(photo.id).motion?.state == .present)
            #expect(try await store.attachment(photo.id).availability == .remote, "asking for the clip fetched only the clip")
            #expect(try await store.verify().isClean)
        }
    }
}
