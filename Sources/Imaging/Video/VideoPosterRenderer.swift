import HelperProcess

/// Renders a video's poster: one frame, upright, downscaled and encoded like a photo's thumbnail.
///
/// The header is read first (``VideoProbe``) and its size checked against the image limits, so
/// a video claiming more pixels than a photo may have is refused before a frame is decoded.
/// ffmpeg then seeks to the poster's time, decodes one frame, turns it by the container's
/// rotation and scales it, all inside its limits; libvips encodes the result with the same
/// options as every thumbnail. Blocks: call it from a thread pool for blocking work.
public enum VideoPosterRenderer {
    /// Renders the poster of the video at `path` to fit in `maxPixelSize` × `maxPixelSize`
    /// (never enlarged).
    /// - Parameter header: what ffprobe already said of this very file (the store keeps it from
    ///   the import); `nil` to run ffprobe first.
    /// - Throws: ``ImagingError/tooManyPixels(path:pixels:limit:)``; ``ImagingError/unreadable(path:cause:)``
    ///   when ffprobe or ffmpeg refuse the file or run out of their limits; ``ImagingError/cancelled``.
    public static func render(
        fileAt path: String, header known: VideoHeader? = nil, maxPixelSize: Int,
        options: ThumbnailRenderer.Options = ThumbnailRenderer.Options(), tools: VideoTools = VideoTools(),
        cancellation: RenderCancellation = RenderCancellation()
    ) throws(ImagingError) -> RenderedImage {
        let header: VideoHeader
        if let known {
            header = known
        } else {
            header = try VideoProbe.header(ofFileAt: path, tools: tools, cancellation: cancellation.helper)
        }
        guard header.pixelCount <= options.limits.maximumPixels else {
            throw .tooManyPixels(path: path, pixels: header.pixelCount, limit: options.limits.maximumPixels)
        }
        let longest = max(header.displayWidth, header.displayHeight)
        let size = max(1, min(maxPixelSize, 10_000, longest))
        // ffmpeg averages the frame down to twice the size, libvips makes the last step as it
        // does for every thumbnail (measured against libvips on ffmpeg's whole frame: mean
        // difference 1.5 levels this way, 3.0 with ffmpeg scaling all the way).
        let box = min(longest, 2 * size)
        var frame = try frame(of: path, at: posterTime(of: header), box: box, tools: tools, cancellation: cancellation)
        // A duration that overstates the stream leaves nothing at the poster's time: the first frame then.
        if frame.isEmpty { frame = try self.frame(of: path, at: 0, box: box, tools: tools, cancellation: cancellation) }
        return try HelperRun.thumbnail(of: frame, drawnBy: "ffmpeg", size: size, path: path, options: options, cancellation: cancellation)
    }

    /// Where the poster is taken: a second in, where a clip has got going, or the first frame
    /// of a clip shorter than two seconds.
    static func posterTime(of header: VideoHeader) -> Double {
        guard let duration = header.duration, duration >= 2 else { return 0 }
        return 1
    }

    /// One frame at `seconds`, rotated upright and averaged down into `box` × `box`, as PNG;
    /// empty when the stream has no frame there.
    private static func frame(of path: String, at seconds: Double, box: Int, tools: VideoTools,
                              cancellation: RenderCancellation) throws(ImagingError) -> [UInt8] {
        let arguments = ["-nostdin"] + VideoTools.restrictions + [
            "-threads", "2", "-ss", String(seconds), "-i", path,
            "-map", "0:v:0", "-an", "-sn", "-dn", "-frames:v", "1",
            "-vf", "scale=w=\(box):h=\(box):force_original_aspect_ratio=decrease:flags=area",
            "-f", "image2pipe", "-c:v", "png", "-compression_level", "1", "pipe:1",
        ]
        return try HelperRun.output(of: tools.ffmpegPath, arguments: arguments, limits: tools.posterLimits, reading: path,
                                    cancellation: cancellation.helper)
    }
}
