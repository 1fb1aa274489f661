@testable import Imaging
import Testing

/// Which libvips loader names map to which ``ImageFormat`` (and which are refused), the media
/// type of each format and of each output encoding, and how ``ThumbnailRenderer/Options``
/// normalises and names its settings. Pure values: libvips is not started.
@Suite("Image formats and render options")
struct ImageFormatTests {
    @Test("each accepted loader, in its file and buffer forms, names its format", arguments: [
        ("jpegload", ImageFormat.jpeg), ("jpegload_buffer", .jpeg), ("jpegload_source", .jpeg),
        ("pngload", .png), ("pngload_buffer", .png), ("webpload", .webp), ("webpload_source", .webp),
        ("gifload", .gif), ("gifload_buffer", .gif), ("tiffload", .tiff), ("tiffload_source", .tiff),
    ])
    func loaderNames(loader: String, format: ImageFormat) {
        #expect(ImageFormat(loader: loader, heifCompression: nil) == format)
        #expect(ImageFormat(loader: loader, heifCompression: "av1") == format, "the HEIF compression only matters to heifload")
    }

    @Test("heifload is AVIF when its compression is AV1, and HEIF (image/heic) otherwise", arguments: [
        ("av1", ImageFormat.avif), ("hevc", .heif), ("jpeg", .heif), ("AV1", .heif), ("", .heif), (nil, .heif),
    ] as [(String?, ImageFormat)])
    func heifCompression(compression: String?, format: ImageFormat) {
        #expect(ImageFormat(loader: "heifload", heifCompression: compression) == format)
        #expect(ImageFormat(loader: "heifload_buffer", heifCompression: compression) == format)
    }

    @Test("loaders outside the accepted photo formats, or spelled differently, name no format", arguments: [
        "svgload", "magickload", "matrixload", "csvload", "pdfload", "vipsload", "ppmload", "radload", "fitsload",
        "", "JPEGLOAD", "load_jpeg", "jpeg", "VipsForeignLoadJpegFile",
    ])
    func refusedLoaders(loader: String) {
        #expect(ImageFormat(loader: loader, heifCompression: nil) == nil)
    }

    @Test("every format has an image/ media type, distinct from the others; HEIF is image/heic")
    func mediaTypes() {
        let types = ImageFormat.allCases.map(\.mediaType)
        #expect(types.allSatisfy { $0.hasPrefix("image/") })
        #expect(Set(types).count == ImageFormat.allCases.count)
        #expect(ImageFormat.heif.mediaType == "image/heic")
        #expect(ImageFormat.jpeg.mediaType == "image/jpeg" && ImageFormat.avif.mediaType == "image/avif")
        #expect(ImageFormat(rawValue: "heif") == .heif && ImageFormat(rawValue: "heic") == nil, "raw values are loader names")
    }

    @Test("an output encoding's media type and file extension; JPEG's extension is jpg", arguments: [
        (RenderedImage.Encoding.jpeg, "image/jpeg", "jpg"), (.png, "image/png", "png"), (.webp, "image/webp", "webp"),
    ])
    func encodings(encoding: RenderedImage.Encoding, mediaType: String, fileExtension: String) {
        #expect(encoding.mediaType == mediaType)
        #expect(encoding.fileExtension == fileExtension)
    }

    @Test("the default options are JPEG 80, WebP 80 for alpha and the default limits, named q80-webp80")
    func defaultOptions() {
        let options = ThumbnailRenderer.Options()
        #expect(options.jpegQuality == 80 && options.webpQuality == 80)
        #expect(options.alphaEncoding == .webp)
        #expect(options.limits == ImageLimits())
        #expect(options.variantName == "q80-webp80")
    }

    @Test("JPEG cannot carry alpha: asked for as the alpha encoding, PNG is used instead")
    func jpegAlphaBecomesPNG() {
        let options = ThumbnailRenderer.Options(alphaEncoding: .jpeg)
        #expect(options.alphaEncoding == .png)
        #expect(options.variantName == "q80-png")
    }

    @Test("the variant name changes with every setting that changes the output, and only with those", arguments: [
        (ThumbnailRenderer.Options(jpegQuality: 90), "q90-webp80"),
        (ThumbnailRenderer.Options(webpQuality: 60), "q80-webp60"),
        (ThumbnailRenderer.Options(alphaEncoding: .png), "q80-png"),
        (ThumbnailRenderer.Options(alphaEncoding: .png, webpQuality: 60), "q80-png"),
        (ThumbnailRenderer.Options(jpegQuality: 1, alphaEncoding: .webp, webpQuality: 100), "q1-webp100"),
        (ThumbnailRenderer.Options(limits: ImageLimits(maximumPixels: 1)), "q80-webp80"),
    ])
    func variantNames(options: ThumbnailRenderer.Options, name: String) {
        #expect(options.variantName == name)
    }

    @Test("a cancellation token starts uncancelled, and stays cancelled once cancelled")
    func cancellationToken() {
        let token = RenderCancellation()
        #expect(!token.isCancelled)
        token.cancel()
        #expect(token.isCancelled)
        token.cancel()
        #expect(token.isCancelled)
    }
}
