import HelperProcess

/// Runs the helper programs that read files for Imaging (ffprobe, ffmpeg, pdfinfo, pdftoppm) and
/// turns their failures into the image's error: the one place a ``ChildProcessError`` becomes an
/// ``ImagingError``.
enum HelperRun {
    /// The standard output of `program` run with `arguments` under `limits`, reading the file at `path`.
    /// - Throws: ``ImagingError/cancelled``, or ``ImagingError/unreadable(path:cause:)`` with the
    ///   program's failure as its cause.
    static func output(of program: String, arguments: [String], limits: ChildProcessLimits, reading path: String,
                       cancellation: ChildProcessCancellation) throws(ImagingError) -> [UInt8] {
        do {
            return try LimitedChildProcess.run(program, arguments: arguments, limits: limits, cancellation: cancellation).standardOutput
        } catch .cancelled {
            throw .cancelled
        } catch {
            throw .unreadable(path: path, cause: .helper(error))
        }
    }

    /// The thumbnail of `picture`, an encoded image a helper program drew of the file at `path`
    /// (a video's frame, a document's page): libvips' last step to `size` and the encode, as for
    /// every thumbnail. `drawer` names the program in the error.
    /// - Throws: ``ImagingError/unreadable(path:cause:)`` when it drew nothing libvips reads.
    static func thumbnail(of picture: [UInt8], drawnBy drawer: String, size: Int, path: String,
                          options: ThumbnailRenderer.Options, cancellation: RenderCancellation) throws(ImagingError) -> RenderedImage {
        guard !picture.isEmpty else { throw .unreadable(path: path, cause: .implausible("\(drawer) drew nothing")) }
        try VipsRuntime.start()
        guard let rendered = try ThumbnailRenderer.render(picture, orientation: 1, size: size, path: path, options: options,
                                                          cancellation: cancellation) else {
            throw .unreadable(path: path, cause: .implausible("what \(drawer) drew is not an image libvips reads"))
        }
        return rendered
    }
}
