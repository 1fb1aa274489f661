import AttachmentStore
import Crypto
import Foundation
import Imaging
import Testing
import TestSupport

/// Videos kept as attachments: the original byte for byte, its size and turn read at import by
/// ffprobe, and a poster frame made in the background by the thumbnail pipeline.
@Suite("Video attachments", .timeLimit(.minutes(2)))
struct VideoAttachmentTests {
    static func clip(_ name: String) throws -> URL { try Corpus.file("video/\(name)") }

    @Test func anH264ClipKeepsItsBytesAndGetsAPosterAndAViewerImage() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "holiday")
        let source = try Self.clip("clip-h264.mp4")
        let added = try await store.addAttachment(to: note.id, fromFile: source)
        #expect(added.mediaType == "video/mp4")
        #expect(added.image == Attachment.ImageInfo(width: 1280, height: 720, orientation: 1, durationMilliseconds: 3000))

        let thumbnail = try await store.thumbnail(for: added.id)
        #expect((thumbnail.mediaType, thumbnail.width, thumbnail.height) == ("image/jpeg", 200, 113))
        let display = try await store.displayImage(for: added.id)
        #expect((display.width, display.height) == (1280, 720))
        let facts = try await store.captureFacts(of: added.id)
        #expect(facts.capturedAt == "2024-05-01T10:20:30+00:00")

        var original = Data()
        for try await chunk in try await store.originalStream(for: added.id) { original.append(contentsOf: chunk.bytes) }
        #expect(original == (try Data(contentsOf: source)), "the original is never changed")
        #expect(try await store.verify().isClean)
    }

    @Test func aPortraitHEVCClipIsRecordedTurnedAndItsPosterStandsUpright() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "portrait")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip("clip-hevc.mov"))
        #expect(added.mediaType == "video/quicktime")
        #expect(added.image == Attachment.ImageInfo(width: 1280, height: 720, orientation: 6, durationMilliseconds: 2500))
        let thumbnail = try await fixture.store.thumbnail(for: added.id, maxPixelSize: 320)
        #expect((thumbnail.width, thumbnail.height) == (180, 320))
        #expect(try await fixture.store.captureFacts(of: added.id).capturedAt == "2024-05-01T12:20:30+02:00")
    }

    @Test func thePosterIsMadeInTheBackgroundAfterImport() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "background")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip("clip-h264.mp4"))
        await fixture.store.waitForBackgroundWork()
        #expect(await fixture.store.hasCachedThumbnail(for: added))
        #expect(fixture.store.thumbnailStatistics.rendersFinished == 1)
    }

    @Test func aClipCutInsideItsIndexIsKeptButHasNoPosterAndTheStoreStaysClean() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "broken")
        let source = try Self.clip("index-cut.mp4")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: source)
        await #expect {
            _ = try await fixture.store.thumbnail(for: added.id)
        } throws: { error in
            guard case AttachmentStore.Error.imageUnreadable(added.id, _) = error else { return false }
            return true
        }
        #expect(await !fixture.store.hasCachedThumbnail(for: added))
        var original = Data()
        for try await chunk in try await fixture.store.originalStream(for: added.id) { original.append(contentsOf: chunk.bytes) }
        #expect(original == (try Data(contentsOf: source)))
        #expect(try await fixture.store.verify().isClean)
    }

    @Test func aClipWhoseHeadersClaimSixteenThousandPixelsASideIsKeptButNeverDecoded() async throws {
        // A crafted file (corpus: video/claims-16000.mov): 16×16 frames whose track, sample
        // entry and JPEG headers all claim 16,000×16,000. ffprobe believes it; the pixel limit
        // refuses it before ffmpeg runs (ffmpeg here does not exist: running it would fail otherwise).
        var configuration = AttachmentStore.Configuration()
        configuration.videos.tools = VideoTools(ffmpegPath: "/nonexistent/ffmpeg-must-not-run")
        let fixture = try await StoreFixture(configuration: configuration)
        let note = try await fixture.store.createNote(title: "crafted")
        let source = try Self.clip("claims-16000.mov")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: source)
        #expect(added.image?.width == 16_000)
        for attempt in ["poster", "playable copy"] {
            await #expect("\(attempt)") {
                if attempt == "poster" { _ = try await fixture.store.thumbnail(for: added.id) } else { _ = try await fixture.store.playableVideo(for: added.id) }
            } throws: { error in
                guard case AttachmentStore.Error.imageTooLarge(added.id, _) = error else { return false }
                return true
            }
        }
        #expect(try await fixture.store.original(of: added.id).data() == (try Data(contentsOf: source)))
        #expect(try await fixture.store.verify().isClean)
    }

    @Test func aClipClaimingTheLargestSizeItsFieldsCanStateIsKeptWithoutFacts() async throws {
        // video/claims-65535.mov: ffprobe itself refuses 65,535×65,535 and reports no size.
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "crafted")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip("claims-65535.mov"))
        #expect(added.image == nil, "no size is recorded that ffprobe did not confirm")
        await #expect(throws: AttachmentStore.Error.self) { _ = try await fixture.store.playableVideo(for: added.id) }
        #expect(try await fixture.store.verify().isClean)
    }

    @Test func withoutFFmpegAVideoIsStillStoredAndSaysWhatIsMissing() async throws {
        var configuration = AttachmentStore.Configuration()
        configuration.videos.tools = VideoTools(ffprobePath: "/nonexistent/ffprobe", ffmpegPath: "/nonexistent/ffmpeg")
        let fixture = try await StoreFixture(configuration: configuration)
        let note = try await fixture.store.createNote(title: "no tools")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip("clip-h264.mp4"))
        #expect(added.mediaType == "video/mp4")
        #expect(added.image == nil)
        await #expect {
            _ = try await fixture.store.thumbnail(for: added.id)
        } throws: { error in
            "\(error)".contains("ffprobe is not installed")
        }
    }
}

/// PDFs kept as attachments: the original byte for byte, the pages counted at import, the first
/// page as the thumbnail.
@Suite("Document attachments", .timeLimit(.minutes(2)))
struct DocumentAttachmentTests {
    @Test func aPDFGetsItsPageCountAndAFirstPageThumbnail() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "receipts")
        let source = try Corpus.file("document/three-pages.pdf")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: source)
        #expect(added.mediaType == "application/pdf")
        #expect(added.image == Attachment.ImageInfo(width: 612, height: 792, orientation: 1, pageCount: 3))
        let thumbnail = try await fixture.store.thumbnail(for: added.id)
        #expect((thumbnail.width, thumbnail.height) == (155, 200))
        var original = Data()
        for try await chunk in try await fixture.store.originalStream(for: added.id) { original.append(contentsOf: chunk.bytes) }
        #expect(original == (try Data(contentsOf: source)))
    }

    @Test func aBrokenPDFIsKeptWithoutAThumbnail() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "broken")
        let added = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("document/truncated.pdf"))
        #expect(added.mediaType == "application/pdf")
        #expect(added.image == nil, "pdfinfo could not read it, so it has no picture")
        await #expect(throws: AttachmentStore.Error.self) { _ = try await fixture.store.thumbnail(for: added.id) }
        #expect(try await fixture.store.verify().isClean)
    }
}

/// A peer's word about a video's frame, turn and playing time counts only while the bytes are
/// not here: for content this store holds, its own ffprobe facts are recorded.
@Suite("A peer's facts about a video held here")
struct PeerVideoFactsTests {
    @Test func aPeersRecordOfContentHeldHereTakesTheFactsFoundInTheBytes() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "held here")
        let held = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("video/clip-hevc.mov"))
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let stamp = ClockStamp(rawValue: String(format: "%013lld-000000-liar", Int64(date.timeIntervalSince1970 * 1000)))
        let peerNote = NoteID(rawValue: "00000000-0000-4000-8000-000000000001")
        // The same bytes, claimed to be a tiny photo-like frame, unturned, an hour long.
        let lie = Attachment(id: AttachmentID(rawValue: "00000000-0000-4000-9000-000000000001"), noteID: peerNote, position: 0,
                             blobHash: held.blobHash, byteCount: held.byteCount, mediaType: "video/mp4", filename: "lie.mov",
                             image: .init(width: 16, height: 16, orientation: 1, durationMilliseconds: 3_600_000),
                             metadata: [:], createdAt: date, updatedAt: date, state: .remote)
        let batch = SyncBatch(peerID: "liar", changes: [
            .note(.init(Note(id: peerNote, title: "the liar's note", body: "", createdAt: date, updatedAt: date), clock: stamp)),
            .attachment(.init(lie, clock: stamp)),
        ], nextSequence: 2, hasMore: false)
        _ = try await store.apply(batch, pulledFrom: "http://liar")
        let recorded = try await store.attachment(lie.id)
        #expect(recorded.mediaType == "video/quicktime")
        #expect(recorded.image == held.image)
        #expect((try await store.thumbnail(for: lie.id)).height == 200, "the poster stands upright, as the bytes say")
    }
}
