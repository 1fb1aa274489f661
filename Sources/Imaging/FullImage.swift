import CVips

/// Whole-image operations at full resolution: decoding every pixel, and re-encoding.
///
/// The store itself never does either on its way (it keeps originals byte for byte and
/// makes thumbnails with shrink-on-load); they exist to measure what apps that do them pay.
/// Every function blocks.
public enum FullImage {
    /// What a full decode produced.
    public struct Decoded: Sendable, Equatable {
        /// Width in pixels, upright.
        public var width: Int
        /// Height in pixels, upright.
        public var height: Int
        /// Bytes of decoded pixels that were held in memory.
        public var pixelBytes: Int
    }

    /// Decodes every pixel of the image at `path` into memory (upright), then frees them.
    /// - Throws: ``ImagingError`` for unreadable or over-limit images.
    public static func decode(fileAt path: String, limits: ImageLimits = ImageLimits()) throws(ImagingError) -> Decoded {
        let image = try open(path, limits: limits)
        defer { cvips_unref(image) }
        var length = 0
        guard let pixels = cvips_write_to_memory(image, &length) else {
            throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError()))
        }
        defer { cvips_free_buffer(pixels) }
        return Decoded(width: Int(cvips_width(image)), height: Int(cvips_height(image)), pixelBytes: length)
    }

    /// A re-encoding of a whole image.
    public enum Encoding: Sendable, Equatable {
        /// JPEG at a quality from 1 to 100.
        case jpeg(quality: Int)
        /// Lossless PNG.
        case png
    }

    /// Decodes the image at `path` at full size (upright) and encodes it again, as apps that
    /// store `UIImage.jpegData(compressionQuality: 1)` or `pngData()` do.
    /// - Throws: ``ImagingError`` for unreadable or over-limit images.
    public static func reencode(fileAt path: String, as encoding: Encoding, limits: ImageLimits = ImageLimits()) throws(ImagingError) -> [UInt8] {
        let image = try open(path, limits: limits)
        defer { cvips_unref(image) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch encoding {
        case .jpeg(let quality): cvips_jpeg(image, &buffer, &length, Int32(quality))
        case .png: cvips_png(image, &buffer, &length)
        }
        guard status == 0, let buffer else { throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError())) }
        defer { cvips_free_buffer(buffer) }
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// Opens the image upright after checking limits from its header.
    private static func open(_ path: String, limits: ImageLimits) throws(ImagingError) -> OpaquePointer {
        // libvips decodes it next: its header through libvips starts libvips and holds the file to
        // the allowed loaders, before the limits are checked.
        try limits.check(try ImageProbe.libvipsHeader(ofFileAt: path), path: path)
        guard let image = cvips_open_full(path) else { throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError())) }
        defer { cvips_unref(image) }
        var upright: OpaquePointer?
        guard cvips_autorotate(image, &upright) == 0, let upright else {
            throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError()))
        }
        return upright
    }
}
