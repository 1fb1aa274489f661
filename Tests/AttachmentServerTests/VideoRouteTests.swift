@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `GET /api/attachments/{id}/video`: the copy a browser plays, made on first request, kept,
/// and served in ranges as a `<video>` element asks for it.
@Suite("The playable copy of a video", .serialized, .timeLimit(.minutes(3)))
struct VideoRouteTests {
    /// What ffprobe says of an MP4 held in memory (written to `directory` first).
    static func probe(_ bytes: Data, in directory: TemporaryDirectory) async throws -> String {
        let file = directory.appending("answer-\(UUID().uuidString).mp4").path(percentEncoded: false)
        try bytes.write(to: URL(filePath: file))
        let outcome = try await ChildProcess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                                                      "-of", "csv=p=0", file])
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anHEVCClipIsTranscodedToAnUprightH264CopyServedInRanges() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let note = try await store.createNote(title: "clips")
        let clip = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("video/clip-hevc.mov"))
        let directory = try TemporaryDirectory("video-route")
        try await fixture.test { client in
            let attachment = try await client.execute(uri: "/api/attachments/\(clip.id)", method: .get)
            let json = try JSONSerialization.jsonObject(with: Data(buffer: attachment.body)) as? [String: Any]
            let address = try #require(json?["videoUrl"] as? String)
            #expect(address == "/api/attachments/\(clip.id)/video?v=\(clip.blobHash)")

            let whole = try await client.execute(uri: address, method: .get)
            #expect(whole.status == .ok)
            #expect(whole.headers[.contentType] == "video/mp4")
            #expect(whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[.cacheControl]?.contains("immutable") == true)
            let bytes = Data(buffer: whole.body)
            #expect(String(decoding: bytes[4..<8], as: UTF8.self) == "ftyp")
            #expect(bytes.range(of: Data("moov".utf8))!.lowerBound < bytes.range(of: Data("mdat".utf8))!.lowerBound,
                    "the index comes before the frames, so playing starts at once")
            #expect(try await Self.probe(bytes, in: directory) == "h264,720,1280\naac")

            let range = try await client.execute(uri: address, method: .get, headers: [.range: "bytes=100-199"])
            #expect(range.status == .partialContent)
            #expect(Data(buffer: range.body) == bytes[100..<200])
            #expect(range.headers[.contentRange] == "bytes 100-199/\(bytes.count)")
            let past = try await client.execute(uri: address, method: .get, headers: [.range: "bytes=\(bytes.count + 10)-"])
            #expect(past.status == .rangeNotSatisfiable)
            let tag = try #require(whole.headers[.eTag])
            let again = try await client.execute(uri: address, method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
        }
        let (files, _) = try await store.playableVideoUsage()
        #expect(files == 1, "one copy, kept for the next viewer")
        var original = Data()
        for try await chunk in try await store.originalStream(for: clip.id) { original.append(contentsOf: chunk.bytes) }
        #expect(original == (try Data(contentsOf: try Corpus.file("video/clip-hevc.mov"))), "the original is never changed")
    }

    @Test func anH264ClipIsCopiedStreamForStream() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let note = try await store.createNote(title: "clips")
        let clip = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("video/clip-h264.mp4"))
        let copy = try await store.playableVideo(for: clip.id)
        let directory = try TemporaryDirectory("video-copy")
        let bytes = try Data(contentsOf: URL(filePath: copy.path))
        #expect(try await Self.probe(bytes, in: directory) == "h264,1280,720\naac")
        // Copied, not encoded again: the same frames, so about the same size as the original.
        #expect(abs(Double(copy.byteCount) / Double(clip.byteCount) - 1) < 0.05, "\(copy.byteCount) against \(clip.byteCount)")
    }

    @Test func anAttachmentThatIsNotAVideoAnswers404AndABrokenClip422() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let note = try await store.createNote(title: "mixed")
        let photo = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        let broken = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("video/index-cut.mp4"))
        try await fixture.test { client in
            let notVideo = try await client.execute(uri: "/api/attachments/\(photo.id)/video", method: .get)
            #expect(notVideo.status == .notFound)
            #expect(String(buffer: notVideo.body).contains("not_a_video"))
            let refused = try await client.execute(uri: "/api/attachments/\(broken.id)/video", method: .get)
            #expect(refused.status == .unprocessableContent)
        }
        #expect(try await store.playableVideoUsage().files == 0, "nothing is kept of a clip ffmpeg refused")
        #expect(try await store.verify().isClean)
    }
}
