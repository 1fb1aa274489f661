import FoundationEssentials
import HelperProcess

/// Reads a video's header with ffprobe, run as a limited child process.
public enum VideoProbe {
    /// The header of the first video stream of the file at `path`. Blocks: call it from a
    /// thread pool for blocking work.
    /// - Throws: ``ImagingError/unreadable(path:cause:)`` when ffprobe is missing, refuses the
    ///   file, runs out of its limits, or finds no video stream of a plausible size;
    ///   ``ImagingError/cancelled``.
    ///
    /// With `offset`, the video starts that many bytes into the file (an Android motion photo's
    /// clip, ``ImageHeader/embeddedVideoOffset``).
    public static func header(ofFileAt path: String, startingAt offset: Int64 = 0, tools: VideoTools = VideoTools(),
                              cancellation: ChildProcessCancellation = ChildProcessCancellation()) throws(ImagingError) -> VideoHeader {
        let (restrictions, input) = VideoTools.input(path, startingAt: offset)
        let answer = try HelperRun.output(
            of: tools.ffprobePath, arguments: restrictions + ["-print_format", "json", "-show_format", "-show_streams"] + input,
            limits: tools.probeLimits, reading: path, cancellation: cancellation)
        return try header(fromProbe: answer, path: path)
    }

    /// The header ffprobe's JSON answer `json` describes.
    static func header(fromProbe json: [UInt8], path: String) throws(ImagingError) -> VideoHeader {
        let answer: ProbeAnswer
        do {
            answer = try JSONDecoder().decode(ProbeAnswer.self, from: Data(json))
        } catch {
            throw .unreadable(path: path, cause: .implausible("ffprobe's answer is not the JSON it writes"))
        }
        guard let stream = answer.streams?.first(where: { $0.codec_type == "video" && $0.disposition?.attached_pic != 1 }) else {
            throw .unreadable(path: path, cause: .implausible("it has no video stream"))
        }
        guard let width = stream.width, let height = stream.height, (1...65_535).contains(width), (1...65_535).contains(height) else {
            throw .unreadable(path: path, cause: .implausible("its video stream has no plausible size"))
        }
        let rotation = stream.side_data_list?.compactMap(\.rotation).first.map(clockwiseRotation) ?? 0
        let duration = seconds(answer.format?.duration) ?? seconds(stream.duration)
        let tags = answer.format?.tags ?? [:]
        let capturedAt = tags["com.apple.quicktime.creationdate"].flatMap(CaptureTime.normalized)
            ?? (tags["creation_time"] ?? stream.tags?["creation_time"]).flatMap(CaptureTime.normalized)
        let audio = answer.streams?.first { $0.codec_type == "audio" }
        return VideoHeader(codec: name(stream.codec_name) ?? "unknown", width: width, height: height,
                           rotation: rotation, duration: duration, capturedAt: capturedAt,
                           pixelFormat: name(stream.pix_fmt), audioCodec: audio.map { name($0.codec_name) ?? "unknown" },
                           contentIdentifier: tags[LivePhotoIdentifier.quickTimeKey].flatMap(LivePhotoIdentifier.validated))
    }

    /// A codec or format name from ffprobe: at most 32 letters, digits and `_`; `nil` otherwise.
    static func name(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.count <= 32,
              text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else { return nil }
        return text
    }

    /// A duration ffprobe wrote, when it is a number of seconds a recording can last.
    static func seconds(_ text: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite, value >= 0, value < 10 * 365 * 86_400 else { return nil }
        return value
    }

    /// ffprobe gives the display matrix's angle counter-clockwise, in degrees, from -180 to 180:
    /// the clockwise turn it means, to the nearest quarter.
    static func clockwiseRotation(_ counterClockwise: Double) -> Int {
        guard counterClockwise.isFinite else { return 0 }
        let quarters = Int((-counterClockwise / 90).rounded())
        return ((quarters % 4 + 4) % 4) * 90
    }
}

/// The part of ffprobe's `-show_format -show_streams` JSON the probe reads; every field optional.
private struct ProbeAnswer: Decodable {
    struct Stream: Decodable {
        struct SideData: Decodable { var rotation: Double? }
        struct Disposition: Decodable { var attached_pic: Int? }
        var codec_type: String?
        var codec_name: String?
        var pix_fmt: String?
        var width: Int?
        var height: Int?
        var duration: String?
        var side_data_list: [SideData]?
        var disposition: Disposition?
        var tags: [String: String]?
    }
    struct Format: Decodable {
        var duration: String?
        var tags: [String: String]?
    }
    var streams: [Stream]?
    var format: Format?
}
