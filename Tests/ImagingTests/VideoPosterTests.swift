import Foundation
import Glibc
import HelperProcess
@testable import Imaging
import Testing
import TestSupport

/// Videos' headers and poster frames, read by ffprobe and ffmpeg as limited child processes:
/// what a phone records is read right, and what an attacker crafts is refused in time.
@Suite("Video headers and posters", .timeLimit(.minutes(2)))
struct VideoPosterTests {
    static func path(_ name: String) throws -> String { try Corpus.file(name).path(percentEncoded: false) }

    /// ffmpeg's own upright frame at `seconds`, scaled by libvips to `size`, as the reference.
    static func reference(of video: String, at seconds: Double, size: Int, in directory: TemporaryDirectory) async throws -> String {
        let frame = directory.appending("frame-\(UUID().uuidString).png").path(percentEncoded: false)
        let outcome = try await ChildProcess.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-ss", String(seconds), "-i", video,
                                                                    "-frames:v", "1", frame])
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        let scaled = directory.appending("reference-\(UUID().uuidString).v").path(percentEncoded: false)
        try await VipsTool.run(["thumbnail", frame, scaled, "\(size)"])
        return scaled
    }

    @Test func anH264ClipsHeaderIsReadWithItsDurationAndRecordingTime() async throws {
        let clip = try Self.path("video/clip-h264.mp4")
        let header = try await OwnThread.run { try VideoProbe.header(ofFileAt: clip) }
        #expect(header == VideoHeader(codec: "h264", width: 1280, height: 720, rotation: 0, duration: 3,
                                      capturedAt: "2024-05-01T10:20:30+00:00", pixelFormat: "yuv420p", audioCodec: "aac"))
    }

    @Test func anIPhoneStyleHEVCClipIsTurnedUprightAndKeepsItsLocalTime() async throws {
        let clip = try Self.path("video/clip-hevc.mov")
        let header = try await OwnThread.run { try VideoProbe.header(ofFileAt: clip) }
        #expect(header.codec == "hevc")
        #expect((header.width, header.height, header.rotation, header.orientation) == (1280, 720, 90, 6))
        #expect((header.displayWidth, header.displayHeight) == (720, 1280))
        #expect(header.capturedAt == "2024-05-01T12:20:30+02:00")
    }

    @Test(arguments: ["video/clip-h264.mp4", "video/clip-hevc.mov"])
    func thePosterIsTheFrameFFmpegShowsScaledAndEncodedLikeAThumbnail(_ name: String) async throws {
        let clip = try Self.path(name)
        let directory = try TemporaryDirectory("poster")
        let poster = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: clip, maxPixelSize: 200) }
        #expect(poster.encoding == .jpeg)
        let header = try await OwnThread.run { try VideoProbe.header(ofFileAt: clip) }
        let landscape = header.displayWidth > header.displayHeight
        #expect(landscape ? (poster.width, poster.height) == (200, 113) : (poster.width, poster.height) == (113, 200))
        let reference = try await Self.reference(of: clip, at: 1, size: 200, in: directory)
        let posterFile = directory.appending("poster.jpg").path(percentEncoded: false)
        try Data(poster.data).write(to: URL(filePath: posterFile))
        let difference = try await ImageDifference.between(posterFile, reference, in: directory)
        // A JPEG encode apart (measured: about 4 levels on average); the frame a tenth of a
        // second off is 29 levels away, a frame turned the wrong way further still.
        #expect(difference.mean < 10, "\(difference)")
    }

    @Test func aHeaderAlreadyReadSpareFFprobe() async throws {
        let clip = try Self.path("video/clip-hevc.mov")
        let known = VideoHeader(recordedWidth: 1280, height: 720, orientation: 6, durationMilliseconds: 2500)
        #expect((known.rotation, known.duration, known.displayWidth) == (90, 2.5, 720))
        let tools = VideoTools(ffprobePath: "/nonexistent/ffprobe-must-not-run")
        let poster = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: clip, header: known, maxPixelSize: 200, tools: tools) }
        #expect((poster.width, poster.height) == (113, 200))
    }

    @Test func aPosterIsNeverLargerThanTheVideo() async throws {
        let clip = try Self.path("video/clip-h264.mp4")
        let poster = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: clip, maxPixelSize: 4000) }
        #expect((poster.width, poster.height) == (1280, 720))
    }

    @Test(arguments: ["video/index-cut.mp4", "bad/random.jpg", "good/Dune.jpg", "bad/text.png"])
    func aFileThatIsNotAWholeVideoIsRefusedAsUnreadable(_ name: String) async throws {
        let file = try Self.path(name)
        let started = ContinuousClock.now
        await #expect {
            _ = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: file, maxPixelSize: 200) }
        } throws: { error in
            guard case ImagingError.unreadable(path: file, _) = error else { return false }
            return true
        }
        // ffprobe's own limit is 10 s; far under a minute even on a machine the full pass loads.
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func aClipCutInItsFramesGivesAPosterOfWhatIsThereOrIsRefused() async throws {
        let file = try Self.path("video/truncated.mp4")
        do {
            let poster = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: file, maxPixelSize: 200) }
            #expect((poster.width, poster.height) == (200, 113))
        } catch ImagingError.unreadable(path: file, _) {
            // Refused: just as good.
        }
    }

    @Test func aPlaylistNamingAServerIsRefusedWithoutAnyConnection() async throws {
        let directory = try TemporaryDirectory("playlist")
        let server = try ScriptedHTTPServer { _ in .init(status: 200, body: Data(repeating: 0x47, count: 188)) }
        let playlist = directory.appending("clip.mp4").path(percentEncoded: false)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n\(server.url)/segment.ts\n#EXT-X-ENDLIST\n"
            .write(toFile: playlist, atomically: true, encoding: .utf8)
        await #expect(throws: ImagingError.self) {
            _ = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: playlist, maxPixelSize: 200) }
        }
        #expect(server.requests.isEmpty)
    }

    @Test func aVideoClaimingMorePixelsThanAPhotoMayHaveIsRefusedBeforeAFrameIsDecoded() async throws {
        let directory = try TemporaryDirectory("claims")
        let claim = #"{"streams":[{"codec_type":"video","codec_name":"h264","width":60000,"height":60000}],"format":{"duration":"3"}}"#
        let tools = VideoTools(ffprobePath: try ExecutableScript.write("echo '\(claim)'", named: "ffprobe", in: directory),
                               ffmpegPath: "/nonexistent/ffmpeg-must-not-run")
        let clip = try Self.path("video/clip-h264.mp4")
        await #expect(throws: ImagingError.tooManyPixels(path: clip, pixels: 3_600_000_000, limit: 100_000_000)) {
            _ = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: clip, maxPixelSize: 200, tools: tools) }
        }
    }

    @Test(arguments: [
        #"{"streams":[{"codec_type":"video","width":100000,"height":100000}]}"#,
        #"{"streams":[{"codec_type":"video","width":0,"height":720}]}"#,
        #"{"streams":[{"codec_type":"audio","codec_name":"aac"}]}"#,
        #"{"streams":"#,
        #"not json at all"#,
    ])
    func anImplausibleProbeAnswerIsRefused(_ answer: String) throws {
        #expect(throws: ImagingError.self) { try VideoProbe.header(fromProbe: Array(answer.utf8), path: "clip.mp4") }
    }

    @Test func hostileTagsAndRotationsAreCheckedNotTrusted() throws {
        let answer = #"""
        {"streams":[{"codec_type":"video","codec_name":"h264","width":640,"height":480,"duration":"1e400",
          "side_data_list":[{"rotation":-450.0}],"tags":{"creation_time":"2024-13-45T99:99:99Z"}}],
         "format":{"duration":"-5","tags":{"com.apple.quicktime.creationdate":"<script>alert(1)</script>"}}}
        """#
        let header = try VideoProbe.header(fromProbe: Array(answer.utf8), path: "clip.mp4")
        #expect(header.duration == nil)
        #expect(header.capturedAt == nil)
        #expect(header.rotation == 90)
    }

    @Test(arguments: [
        ("2024-05-01T12:20:30+0200", "2024-05-01T12:20:30+02:00"),
        ("2024-05-01T10:20:30.000000Z", "2024-05-01T10:20:30+00:00"),
        ("2024-05-01 10:20:30-05:30", "2024-05-01T10:20:30-05:30"),
        ("2024-05-01T10:20:30", nil),
        ("2024-05-01T10:20:30+9900", nil),
        ("2024-02-30X10:20:30Z", nil),
    ] as [(String, String?)])
    func recordingTimesAreNormalisedOrDropped(_ tag: String, _ expected: String?) {
        #expect(CaptureTime.normalized(tag) == expected)
    }

    @Test func aDecoderThatNeverFinishesIsStoppedAtItsTimeLimitAndLeavesNoProcess() async throws {
        let directory = try TemporaryDirectory("loop")
        let pidFile = directory.appending("pid").path(percentEncoded: false)
        // A stand-in for ffmpeg stuck in a crafted stream: it spins until it is killed.
        let tools = VideoTools(ffmpegPath: try ExecutableScript.write("echo $$ > \(pidFile); while :; do :; done", named: "ffmpeg", in: directory),
                               posterLimits: ChildProcessLimits(wallClock: .milliseconds(800), fileSizeBytes: 64))
        let clip = try Self.path("video/clip-h264.mp4")
        let started = ContinuousClock.now
        await #expect {
            _ = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: clip, maxPixelSize: 200, tools: tools) }
        } throws: { error in
            guard case ImagingError.unreadable(_, .helper(.timedOut)) = error else { return false }
            return true
        }
        // It would spin forever: stopped at its limit, with room for a machine the full pass loads.
        #expect(ContinuousClock.now - started < .seconds(60))
        let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0 && errno == ESRCH)
    }

    @Test func cancellingARenderStopsFFmpeg() async throws {
        let directory = try TemporaryDirectory("cancel")
        let tools = VideoTools(ffmpegPath: try ExecutableScript.write("sleep 600", named: "ffmpeg", in: directory))
        let clip = try Self.path("video/clip-h264.mp4")
        let cancellation = RenderCancellation()
        let started = ContinuousClock.now
        let render = Task {
            try await OwnThread.run { _ = try VideoPosterRenderer.render(fileAt: clip, maxPixelSize: 200, tools: tools, cancellation: cancellation) }
        }
        try await Task.sleep(for: .milliseconds(400))
        cancellation.cancel()
        await #expect(throws: ImagingError.cancelled) { try await render.value }
        #expect(ContinuousClock.now - started < .seconds(120), "stopped by the cancel, not after its ten minutes")
    }

    @Test func aMissingFFmpegIsNamedInTheError() async throws {
        let tools = VideoTools(ffprobePath: "/nonexistent/ffprobe")
        let clip = try Self.path("video/clip-h264.mp4")
        await #expect(throws: ImagingError.unreadable(path: clip, cause: .helper(.programMissing(program: "ffprobe")))) {
            _ = try await OwnThread.run { try VideoPosterRenderer.render(fileAt: clip, maxPixelSize: 200, tools: tools) }
        }
    }
}
