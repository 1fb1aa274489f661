import CVips

/// Reads image headers with libvips.
///
/// Every function here blocks the calling thread on file I/O: call it from a thread pool
/// for blocking work, never from Swift's cooperative pool.
public enum ImageProbe {
    /// The libvips loaders allowed to read a file: the photo formats the store thumbnails,
    /// whose libraries are fuzzed upstream. libvips' own "untrusted" flag leaves others open
    /// (its text matrix loader, for one), so the store names the ones it wants.
    static let allowedLoaders: Set<String> = [
        "VipsForeignLoadJpegFile", "VipsForeignLoadPngFile", "VipsForeignLoadWebpFile", "VipsForeignLoadHeifFile",
        "VipsForeignLoadTiffFile", "VipsForeignLoadNsgifFile", "VipsForeignLoadGifFile",
    ]

    /// Loads and starts libvips now if it is not yet, so that the first header read or render
    /// does not wait for it (loading it and the libraries it brings takes some 30 ms). Blocks:
    /// call it off the cooperative pool. Every caller after the first waits for that one start.
    /// A process must not exit while this runs on another thread (libvips corrupts its heap
    /// when torn down half-loaded): whoever starts it in the background awaits it.
    /// - Throws: ``ImagingError/libraryUnavailable(_:)`` when libvips cannot be loaded or started.
    public static func prepare() throws(ImagingError) {
        try VipsRuntime.start()
    }

    /// Reads the header of the image file at `path`: format, size, orientation, alpha, frames.
    ///
    /// Only the header is read; no pixel is decoded, so a 900-megapixel "bomb" costs the same
    /// as a thumbnail-sized file. A plain JPEG's header is read without loading libvips (see
    /// `JPEGHeaderReader`), with the same answer; every other file goes to libvips.
    /// - Throws: ``ImagingError/unsupportedFormat(path:)`` when no trusted loader accepts the
    ///   file, ``ImagingError/unreadable(path:cause:)`` when its header is damaged.
    public static func header(ofFileAt path: String) throws(ImagingError) -> ImageHeader {
        if let header = JPEGHeaderReader.header(ofFileAt: path) { return header }
        return try libvipsHeader(ofFileAt: path)
    }

    /// Whether the header of a file of `mediaType` is read without libvips (JPEG, unless the file
    /// is unusual: CMYK, 12-bit, damaged), so that loading libvips ahead of the read would be
    /// wasted work.
    public static func readsHeaderWithoutLibvips(mediaType: String) -> Bool {
        mediaType == ImageFormat.jpeg.mediaType
    }

    /// Reads the header of the image file at `path` through libvips alone, as ``header(ofFileAt:)``
    /// does for everything but plain JPEGs. The tests hold the JPEG reader to this answer.
    package static func libvipsHeader(ofFileAt path: String) throws(ImagingError) -> ImageHeader {
        try VipsRuntime.start()
        guard let loader = cvips_find_loader(path), allowedLoaders.contains(String(cString: loader)) else {
            cvips_clear_error()
            throw .unsupportedFormat(path: path)
        }
        guard let image = cvips_open_header(path) else {
            throw .unreadable(path: path, cause: .libvips(VipsRuntime.lastError()))
        }
        defer { cvips_unref(image) }

        let loaderName = cvips_get_string(image, "vips-loader").map { String(cString: $0) } ?? ""
        let heifCompression = cvips_get_string(image, "heif-compression").map { String(cString: $0) }
        guard let format = ImageFormat(loader: loaderName, heifCompression: heifCompression) else {
            throw .unsupportedFormat(path: path)
        }
        var orientation: Int32 = 1
        _ = cvips_get_int(image, "orientation", &orientation)
        return ImageHeader(
            format: format,
            width: Int(cvips_width(image)),
            height: Int(cvips_height(image)),
            orientation: (1...8).contains(orientation) ? Int(orientation) : 1,
            hasAlpha: cvips_has_alpha(image) != 0,
            frameCount: max(1, Int(cvips_page_count(image))),
            bands: Int(cvips_bands(image)),
            bytesPerBand: max(1, Int(cvips_bytes_per_band(image))),
            contentIdentifier: exifBlock(of: image).flatMap(LivePhotoIdentifier.reading(inEXIF:)),
            embeddedVideoOffset: format == .jpeg ? embeddedVideoOffset(of: image, path: path) : nil
        )
    }

    /// The image's `exif-data` blob, when it has one of at most 1 MiB (a JPEG's APP1 holds at
    /// most 64 KiB; a HEIF's is no larger in practice).
    private static func exifBlock(of image: OpaquePointer) -> [UInt8]? { blob("exif-data", of: image) }

    /// The blob field `name` of `image`, when it has one of 1 byte to 1 MiB.
    private static func blob(_ name: String, of image: OpaquePointer) -> [UInt8]? {
        var length = 0
        guard let data = cvips_get_blob(image, name, &length), (1...(1 << 20)).contains(length) else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Where an Android motion photo's clip starts in the JPEG at `path`, from its `xmp-data`.
    private static func embeddedVideoOffset(of image: OpaquePointer, path: String) -> Int64? {
        guard let xmp = blob("xmp-data", of: image) else { return nil }
        return FileBytes.reading(fileAt: path) { source in
            MotionPhoto.videoOffset(xmp: xmp, fileSize: source.fileSize) { source.bytes(at: $0, count: 8) }
        }
    }
}
