@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The playable copies of videos: made once for every viewer, in slots of their own, removed
/// when the viewer goes or the budget needs room, before any original.
@Suite("Playable copies of videos", .timeLimit(.minutes(2)))
struct PlayableVideoTests {
    static func clip(_ name: String) throws -> URL { try Corpus.file("video/\(name)") }

    /// Every file under the store's `cache/renditions/`, by name.
    static func renditionFiles(of fixture: StoreFixture) -> [String] {
        let root = fixture.storeURL.appending(path: "cache/renditions").path(percentEncoded: false)
        return (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [])
            .filter { !$0.isEmpty && (try? FileManager.default.attributesOfItem(atPath: root + "/" + $0)[.type] as? FileAttributeType) == .typeRegular }
    }

    @Test func openingAVideoNeverWaitsBehindThumbnailWork() async throws {
        var configuration = AttachmentStore.Configuration()
        configuration.thumbnails.generateAfterImport = false
        configuration.thumbnails.maximumConcurrentRenders = 1
        let fixture = try await StoreFixture(configuration: configuration)
        let store = fixture.store
        let note = try await store.createNote(title: "busy")
        let clip = try await store.addAttachment(to: note.id, fromFile: try Self.clip("clip-hevc.mov"))
        let photos = try await Array(Corpus.files(in: "fifty").prefix(4)).asyncMap { try await store.addAttachment(to: note.id, fromFile: $0) }
        // The test holds the only render slot and thumbnails queue behind it.
        let scheduler = store.thumbnails.scheduler
        try await scheduler.acquire(id: .max, urgent: true)
        let waiting = photos.map { photo in Task { try await store.thumbnail(for: photo.id) } }
        while scheduler.queueDepth < photos.count { try await Task.sleep(for: .milliseconds(5)) }

        let video = try await store.playableVideo(for: clip.id)
        #expect(video.byteCount > 0)
        #expect(scheduler.queueDepth == photos.count, "the thumbnails were still waiting")
        scheduler.release()
        for task in waiting { _ = try await task.value }
    }

    @Test func viewersOfOneClipShareOneCopy() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "shared")
        let clip = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip("clip-hevc.mov"))
        let viewers = (0..<4).map { _ in Task { try await fixture.store.playableVideo(for: clip.id) } }
        var copies: [PlayableVideo] = []
        for viewer in viewers { copies.append(try await viewer.value) }
        #expect(Set(copies.map(\.path)).count == 1)
        #expect(Self.renditionFiles(of: fixture).count == 1, "\(Self.renditionFiles(of: fixture))")
    }

    @Test func aViewerWhoLeavesStopsTheTranscodeAndLeavesNothingBehind() async throws {
        // A stand-in for a slow ffmpeg: it starts writing the copy, then takes its time.
        let tools = try TemporaryDirectory("slow-ffmpeg")
        let script = try ExecutableScript.write("for a; do out=$a; done\necho started > \"$out\"\nexec sleep 60", named: "ffmpeg", in: tools)
        var configuration = AttachmentStore.Configuration()
        configuration.videos.tools.ffmpegPath = script
        configuration.videos.tools.posterLimits.fileSizeBytes = 1 << 20
        configuration.videos.rendition.maximumBytes = 1 << 20
        let fixture = try await StoreFixture(configuration: configuration)
        let note = try await fixture.store.createNote(title: "left")
        let clip = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip("clip-hevc.mov"))
        let viewer = Task { try await fixture.store.playableVideo(for: clip.id) }
        let partial = { Self.renditionFiles(of: fixture).contains { $0.contains(".part-") } }
        let deadline = ContinuousClock.now + .seconds(30)
        while !partial() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(partial(), "ffmpeg was writing the copy")
        let left = ContinuousClock.now
        viewer.cancel()
        await #expect(throws: CancellationError.self) { try await viewer.value }
        #expect(ContinuousClock.now - left < .seconds(10), "the transcode stopped when the viewer left")
        #expect(Self.renditionFiles(of: fixture).isEmpty, "\(Self.renditionFiles(of: fixture))")
        // The next viewer, with the real ffmpeg, gets a whole copy.
        let reopened = try await fixture.reopen { $0.videos = VideoConfiguration() }
        #expect(try await reopened.playableVideo(for: clip.id).byteCount > 0)
    }

    @Test(arguments: ["clip-h264.mp4", "clip-hevc.mov"])
    func aClipLongerThanTheLimitIsCutThereWhetherCopiedOrTranscoded(_ name: String) async throws {
        // The limit stands for the 15 minutes a ten-hour clip is cut to: one second of these clips.
        var configuration = AttachmentStore.Configuration()
        configuration.videos.rendition.maximumDuration = .seconds(1)
        let fixture = try await StoreFixture(configuration: configuration)
        let note = try await fixture.store.createNote(title: "long")
        let clip = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip(name))
        let copy = try await fixture.store.playableVideo(for: clip.id)
        let outcome = try await ChildProcess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", copy.path])
        let seconds = try #require(Double(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(seconds > 0.5 && seconds < 1.5, "\(seconds) s")
        #expect(try await fixture.store.attachment(clip.id).image?.durationMilliseconds ?? 0 > 2_000, "the original keeps its length")
    }

    @Test func aTenHourClipIsKeptWholeGetsAPosterAndPlaysAsItsFirstFifteenMinutes() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "left running")
        let source = try Self.clip("ten-hours.mp4")
        let clip = try await fixture.store.addAttachment(to: note.id, fromFile: source)
        #expect(clip.image?.durationMilliseconds == 36_000_000, "ten hours, as its container says")
        let poster = try await fixture.store.thumbnail(for: clip.id)
        #expect((poster.width, poster.height) == (64, 36), "a poster, from the frame a second in")
        let copy = try await fixture.store.playableVideo(for: clip.id)
        let outcome = try await ChildProcess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", copy.path])
        let seconds = try #require(Double(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(seconds > 899 && seconds <= 901, "cut at the 15 minutes of the default settings: \(seconds) s")
        var original = Data()
        for try await chunk in try await fixture.store.originalStream(for: clip.id) { original.append(contentsOf: chunk.bytes) }
        #expect(original == (try Data(contentsOf: source)), "the original keeps all ten hours")
        #expect(try await fixture.store.verify().isClean)
    }

    @Test func theRealFFmpegDecodingPastItsTimeLimitIsKilledAndLeavesNothing() async throws {
        // No stand-in: the real ffmpeg transcoding the HEVC clip (about half a second of work)
        // under a limit of a tenth of that, as a file that keeps the decoder busy would run.
        var configuration = AttachmentStore.Configuration()
        configuration.videos.rendition.timeLimit = .milliseconds(50)
        let fixture = try await StoreFixture(configuration: configuration)
        let note = try await fixture.store.createNote(title: "busy")
        let clip = try await fixture.store.addAttachment(to: note.id, fromFile: try Self.clip("clip-hevc.mov"))
        let started = ContinuousClock.now
        await #expect {
            _ = try await fixture.store.playableVideo(for: clip.id)
        } throws: { error in
            guard case AttachmentStore.Error.imageUnreadable(clip.id, _) = error else { return false }
            return "\(error)".contains("took longer than")
        }
        #expect(ContinuousClock.now - started < .seconds(60), "stopped at its limit, not after the whole transcode")
        #expect(try await fixture.store.playableVideoUsage().files == 0, "no partial copy is left")
        // No ffmpeg is left writing a copy into this store's renditions (the poster the import
        // made in the background reads the original, not that folder; other tests' ffmpeg may run).
        let renditions = fixture.storeURL.appending(path: "cache/renditions").path(percentEncoded: false)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.allSatisfy(\.isNumber) {
            let commandLine = (try? Data(contentsOf: URL(filePath: "/proc/\(entry)/cmdline"))) ?? Data()
            #expect(!String(decoding: commandLine, as: UTF8.self).contains(renditions), "process \(entry) outlived its limit")
        }
    }

    @Test func theBudgetRemovesPlayableCopiesBeforeAnyOriginal() async throws {
        var configuration = AttachmentStore.Configuration()
        configuration.evictionGrace = 0
        let fixture = try await StoreFixture(configuration: configuration)
        let store = fixture.store
        let note = try await store.createNote(title: "budget")
        let clip = try await store.addAttachment(to: note.id, fromFile: try Self.clip("clip-hevc.mov"))
        let copy = try await store.playableVideo(for: clip.id)
        let originals = try await store.statistics().blobBytes
        try await store.setStorageBudget(StorageBudget(maxLocalBytes: originals + copy.byteCount / 2))
        let report = try await store.enforceStorageBudget()
        #expect(report.playableVideosRemoved == 1)
        #expect(report.playableVideoBytesRemoved == copy.byteCount)
        #expect(report.originalsEvicted == 0)
        #expect(try await store.attachment(clip.id).state == .present)
        #expect(try await store.playableVideoUsage().files == 0)
        #expect(try await store.verify().isClean)
    }
}
