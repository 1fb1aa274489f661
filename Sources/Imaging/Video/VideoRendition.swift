import HelperProcess

/// Makes the copy of a video a browser plays: H.264 and AAC in MP4, its index at the front,
/// no larger than ``Settings/maxPixelSize`` on its longest side, upright, at most
/// ``Settings/maximumDuration`` long. The original is only read.
///
/// A clip that is already such a file (H.264 in 8-bit 4:2:0, AAC or no sound, small enough) is
/// copied stream for stream with its index moved to the front: seconds, not minutes, and no
/// loss. Anything else is transcoded. ffmpeg runs as a ``LimitedChildProcess``, writing only
/// the output file, whose size its limits bound. Blocks: call it from a thread pool for
/// blocking work.
public enum VideoRendition {
    /// What renditions are made like.
    public struct Settings: Sendable, Equatable {
        /// The longest side of a transcoded rendition, in pixels. Default 1280.
        public var maxPixelSize: Int
        /// The most playing time a rendition keeps; a longer clip is cut there. Default 15 minutes.
        public var maximumDuration: Duration
        /// x264's constant quality, 1...51 (lower is better; 0, lossless, is not a playable
        /// profile and is taken as 1). Default 23.
        public var quality: Int
        /// The largest rendition file ffmpeg may write. Default 2 GiB.
        public var maximumBytes: Int64
        /// How long one rendition may take. Default 20 minutes.
        public var timeLimit: Duration

        /// Settings with the given values (defaults as documented on each property).
        public init(maxPixelSize: Int = 1280, maximumDuration: Duration = .seconds(15 * 60), quality: Int = 23,
                    maximumBytes: Int64 = 2 << 30, timeLimit: Duration = .seconds(20 * 60)) {
            self.maxPixelSize = maxPixelSize
            self.maximumDuration = maximumDuration
            self.quality = quality
            self.maximumBytes = maximumBytes
            self.timeLimit = timeLimit
        }

        /// A short, stable name of these settings, for cache paths (`h264-1280-q23-900s`).
        public var variantName: String {
            "h264-\(maxPixelSize)-q\(quality)-\(maximumDuration.components.seconds)s"
        }
    }

    /// How a rendition is made from a clip.
    public enum Plan: Sendable, Equatable {
        /// Its streams copied as they are, the index moved to the front.
        case copy
        /// Decoded and encoded again.
        case transcode
    }

    /// How the clip `header` describes is made playable under `settings`.
    public static func plan(for header: VideoHeader, settings: Settings) -> Plan {
        let playable = header.codec == "h264" && ["yuv420p", "yuvj420p"].contains(header.pixelFormat ?? "")
            && (header.audioCodec == nil || header.audioCodec == "aac")
            && max(header.width, header.height) <= max(settings.maxPixelSize, 1920)
        return playable ? .copy : .transcode
    }

    /// Writes the rendition of the video at `path` (described by `header`; starting `offset`
    /// bytes in, for a clip inside a motion photo) to `output`, a new file in a folder of the store's. On failure nothing usable is left at `output` (the caller
    /// removes whatever is there).
    /// - Throws: ``ImagingError/tooManyPixels(path:pixels:limit:)``; ``ImagingError/unreadable(path:cause:)``
    ///   when ffmpeg refuses the clip or runs out of its limits; ``ImagingError/cancelled``.
    public static func make(
        fileAt path: String, startingAt offset: Int64 = 0, header: VideoHeader, into output: String, settings: Settings = Settings(),
        limits: ImageLimits = ImageLimits(), tools: VideoTools = VideoTools(), cancellation: RenderCancellation = RenderCancellation()
    ) throws(ImagingError) {
        guard header.pixelCount <= limits.maximumPixels else {
            throw .tooManyPixels(path: path, pixels: header.pixelCount, limit: limits.maximumPixels)
        }
        let processLimits = ChildProcessLimits(
            wallClock: settings.timeLimit, cpuSeconds: Int(settings.timeLimit.components.seconds) * 2, addressSpaceBytes: 3 << 30,
            fileSizeBytes: settings.maximumBytes, openFiles: 64, maximumOutputBytes: 1 << 20)
        _ = try HelperRun.output(of: tools.ffmpegPath, arguments: arguments(path: path, startingAt: offset, header: header, output: output,
                                                                            settings: settings),
                                 limits: processLimits, reading: path, cancellation: cancellation.helper)
    }

    /// ffmpeg's arguments for the rendition of `path` into `output`.
    static func arguments(path: String, startingAt offset: Int64 = 0, header: VideoHeader, output: String, settings: Settings) -> [String] {
        let (restrictions, source) = VideoTools.input(path, startingAt: offset)
        let input = ["-nostdin"] + restrictions + ["-threads", "2"] + source + ["-map", "0:v:0", "-map", "0:a:0?", "-sn", "-dn",
                                                             "-map_metadata", "-1", "-t", String(settings.maximumDuration.components.seconds)]
        let coding: [String]
        switch plan(for: header, settings: settings) {
        case .copy:
            coding = ["-c", "copy"]
        case .transcode:
            let size = settings.maxPixelSize
            coding = ["-vf", "scale=w='min(\(size),iw)':h='min(\(size),ih)':force_original_aspect_ratio=decrease:force_divisible_by=2",
                      "-c:v", "libx264", "-preset", "veryfast", "-crf", String(min(51, max(1, settings.quality))), "-profile:v", "high",
                      "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-ac", "2"]
        }
        return input + coding + ["-movflags", "+faststart", "-f", "mp4", output]
    }
}
