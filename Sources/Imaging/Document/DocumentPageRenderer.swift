import HelperProcess

/// Renders a PDF's first page as a thumbnail: poppler's `pdftoppm` draws it, as a limited child
/// process, into twice the thumbnail's size; libvips makes the last step and the encode, as for
/// every thumbnail. Only the first page is ever drawn, whatever the page count. Blocks.
public enum DocumentPageRenderer {
    /// Renders the first page of the PDF at `path` to fit in `maxPixelSize` × `maxPixelSize`;
    /// unless `probed` (pdfinfo already read it), pdfinfo reads it first, so a file it refuses
    /// is never drawn.
    /// - Throws: ``ImagingError/unreadable(path:cause:)`` when poppler refuses the file or runs
    ///   out of its limits; ``ImagingError/cancelled``.
    public static func render(
        fileAt path: String, probed: Bool = false, maxPixelSize: Int,
        options: ThumbnailRenderer.Options = ThumbnailRenderer.Options(), tools: DocumentTools = DocumentTools(),
        cancellation: RenderCancellation = RenderCancellation()
    ) throws(ImagingError) -> RenderedImage {
        if !probed { _ = try DocumentProbe.header(ofFileAt: path, tools: tools, cancellation: cancellation.helper) }
        let size = max(1, min(maxPixelSize, 10_000))
        let page = try HelperRun.output(of: tools.pdftoppmPath, arguments: ["-q", "-f", "1", "-l", "1", "-scale-to", String(2 * size), "-png", path],
                                        limits: tools.renderLimits, reading: path, cancellation: cancellation.helper)
        return try HelperRun.thumbnail(of: page, drawnBy: "pdftoppm", size: size, path: path, options: options, cancellation: cancellation)
    }
}
