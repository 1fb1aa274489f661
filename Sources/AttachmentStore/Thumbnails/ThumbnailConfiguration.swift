import Imaging
import Foundation
import NIOPosix

/// How a store makes and keeps thumbnails; every field has a safe default.
public struct ThumbnailConfiguration: Sendable {
    /// The size asked for when none is given, in pixels on the longest side. Default 200.
    public var defaultSize = 200
    /// The largest size that may be asked for. Default 4096.
    public var maximumSize = 4096
    /// How many renders run at once. Default: the number of cores.
    public var maximumConcurrentRenders = ProcessInfo.processInfo.activeProcessorCount
    /// Byte budget of the in-memory cache of encoded thumbnails. Default 32 MiB.
    public var memoryCacheByteLimit = 32 << 20
    /// Whether adding an image starts its default-size thumbnail in the background. Default true.
    public var generateAfterImport = true
    /// Encoding and decoding limits (JPEG quality 80, WebP for alpha, 100 megapixels, 256 MiB).
    public var renderOptions = ThumbnailRenderer.Options()
    /// poppler's pdfinfo and pdftoppm, which read PDFs' pages and draw their first, and their limits.
    public var documentTools = DocumentTools()

    /// The default configuration.
    public init() {}
}
