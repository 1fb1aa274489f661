import CVips
#if canImport(Glibc)
import Glibc
#endif

/// Renders downscaled, upright, metadata-free images with libvips.
///
/// Uses shrink-on-load (a 12 MP JPEG is decoded at 1/8 scale for a 200 px thumbnail), applies
/// EXIF orientation, converts to 8-bit sRGB and encodes JPEG for opaque images, PNG or WebP
/// for images with alpha. Limits are checked from the header first, so a decompression bomb
/// is refused in milliseconds. Every function blocks: call it from a thread pool for blocking
/// work, never from Swift's cooperative pool.
public enum ThumbnailRenderer {
    /// How to encode the output.
    public struct Options: Sendable, Equatable {
        /// JPEG quality for opaque images, 1...100. Default 80.
        public var jpegQuality: Int
        /// Encoding for images with alpha: `.png` or `.webp`. Default `.webp`.
        public var alphaEncoding: RenderedImage.Encoding
        /// WebP quality when ``alphaEncoding`` is `.webp`. Default 80.
        public var webpQuality: Int
        /// What will be decoded at all.
        public var limits: ImageLimits

        /// Options with the given values (defaults: JPEG 80, WebP 80 for alpha, default limits).
        public init(jpegQuality: Int = 80, alphaEncoding: RenderedImage.Encoding = .webp, webpQuality: Int = 80,
                    limits: ImageLimits = ImageLimits()) {
            self.jpegQuality = jpegQuality
            self.alphaEncoding = alphaEncoding == .jpeg ? .png : alphaEncoding
            self.webpQuality = webpQuality
            self.limits = limits
        }

        /// A short, stable name of the output settings, for cache keys (`q80-webp80`).
        public var variantName: String {
            "q\(jpegQuality)-" + (alphaEncoding == .png ? "png" : "webp\(webpQuality)")
        }
    }

    /// Renders the image file at `path` to fit in `maxPixelSize` × `maxPixelSize` (never enlarged).
    /// - Throws: ``ImagingError/unsupportedFormat(path:)``, ``ImagingError/tooManyPixels(path:pixels:limit:)``,
    ///   ``ImagingError/tooManyBytes(path:bytes:limit:)``, ``ImagingError/unreadable(path:cause:)`` for
    ///   truncated or corrupt data, ``ImagingError/cancelled``.
    public static func render(
        fileAt path: String, maxPixelSize: Int, options: Options = Options(),
        cancellation: RenderCancellation = RenderCancellation()
    ) throws(ImagingError) -> RenderedImage {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(path: path, cause: .system(call: "stat", errno: errno)) }
        guard Int64(info.st_size) <= options.limits.maximumBytes else {
            throw .tooManyBytes(path: path, bytes: Int64(info.st_size), limit: options.limits.maximumBytes)
        }
        // libvips decodes it next: its header through libvips starts libvips and holds the file to
        // the allowed loaders, before the limits are checked.
        let header = try ImageProbe.libvipsHeader(ofFileAt: path)
        try options.limits.check(header, path: path)
        guard !cancellation.isCancelled else { throw .cancelled }

        let size = max(1, min(maxPixelSize, 10_000))
        if let smaller = smallerSource(ofFileAt: path, header: header, size: size),
           let rendered = try render(smaller, orientation: header.orientation, size: size, path: path, options: options,
                                     cancellation: cancellation) {
            return rendered
        }
        var thumbnail: OpaquePointer?
        guard cvips_thumbnail(path, &thumbnail, Int32(size), Int32(size)) == 0, let thumbnail else {
            throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError()))
        }
        defer { cvips_unref(thumbnail) }
        return try encode(thumbnail, path: path, options: options, cancellation: cancellation)
    }

    /// How much less than the whole file a JPEG's thumbnail can be made from: its embedded
    /// preview (``EmbeddedPreview``) when that holds at least the pixels libvips would shrink the
    /// picture to, else, for a progressive JPEG libvips will decode at 1/8 scale, the scans such
    /// a decode reads (``ProgressiveDCStream``); `nil` for every other image. Opens the file once.
    static func smallerSource(ofFileAt path: String, header: ImageHeader, size: Int) -> [UInt8]? {
        guard header.format == .jpeg else { return nil }
        let scale = min(Double(size) / Double(header.width), Double(size) / Double(header.height), 1)
        // libvips shrinks a JPEG on load by 8 when the whole shrink is 16 or more; 17 leaves a margin.
        let shrunkByEight = Double(max(header.width, header.height)) >= 17 * Double(size)
        return FileBytes.reading(fileAt: path) { source in
            if let preview = EmbeddedPreview.find(in: source, primary: header,
                                                  minimumWidth: Int((Double(header.width) * scale).rounded()),
                                                  minimumHeight: Int((Double(header.height) * scale).rounded())),
               let bytes = preview.bytes(in: source) {
                return bytes
            }
            return shrunkByEight ? ProgressiveDCStream.stream(of: source) : nil
        }
    }

    /// The thumbnail made from `bytes` (an encoded image standing in for the file: a JPEG
    /// preview, cut scans, a video's frame), turned upright by `orientation`; `nil` when they
    /// do not decode.
    static func render(
        _ bytes: [UInt8], orientation: Int, size: Int, path: String, options: Options,
        cancellation: RenderCancellation
    ) throws(ImagingError) -> RenderedImage? {
        // libvips reads the buffer lazily, until the encode ends: keep it alive until then.
        let outcome: Result<RenderedImage, ImagingError>? = bytes.withUnsafeBytes { raw in
            var thumbnail: OpaquePointer?
            guard cvips_thumbnail_embedded(raw.baseAddress, raw.count, &thumbnail, Int32(size), Int32(size),
                                           Int32(orientation)) == 0, let thumbnail else { return nil }
            defer { cvips_unref(thumbnail) }
            do throws(ImagingError) {
                return .success(try encode(thumbnail, path: path, options: options, cancellation: cancellation))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let rendered)?: return rendered
        case .failure(.cancelled)?: throw .cancelled
        case .failure?, nil:
            cvips_clear_error()
            return nil
        }
    }

    /// Converts a thumbnail pipeline to 8-bit sRGB and encodes it (JPEG, or the alpha encoding).
    private static func encode(
        _ thumbnail: OpaquePointer, path: String, options: Options, cancellation: RenderCancellation
    ) throws(ImagingError) -> RenderedImage {
        let displayable = try sRGB(thumbnail, path: path)
        defer { cvips_unref(displayable) }

        let hasAlpha = cvips_has_alpha(displayable) != 0
        let encoding: RenderedImage.Encoding = hasAlpha ? options.alphaEncoding : .jpeg
        guard cancellation.begin(displayable) else { throw .cancelled }
        defer { cancellation.end() }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch encoding {
        case .jpeg: cvips_jpeg(displayable, &buffer, &length, Int32(options.jpegQuality))
        case .png: cvips_png(displayable, &buffer, &length)
        case .webp: cvips_webp(displayable, &buffer, &length, Int32(options.webpQuality))
        }
        guard status == 0, let buffer else {
            let reason = VipsRuntime.lastError()
            if cancellation.isCancelled { throw .cancelled }
            throw .unreadable(path: path, cause: .libvips(reason))
        }
        defer { cvips_free_buffer(buffer) }
        var bytes = [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
        if encoding == .webp { bytes = WebPMetadataStripper.strip(bytes) }
        return RenderedImage(
            data: bytes, encoding: encoding,
            width: Int(cvips_width(displayable)), height: Int(cvips_height(displayable))
        )
    }

    /// The image as 8-bit sRGB (a new reference the caller releases).
    private static func sRGB(_ image: OpaquePointer, path: String) throws(ImagingError) -> OpaquePointer {
        var converted: OpaquePointer?
        guard cvips_to_srgb(image, &converted) == 0, let converted else {
            throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError()))
        }
        guard cvips_is_uchar(converted) == 0 else { return converted }
        defer { cvips_unref(converted) }
        var narrowed: OpaquePointer?
        guard cvips_to_uchar(converted, &narrowed) == 0, let narrowed else {
            throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError()))
        }
        return narrowed
    }
}
