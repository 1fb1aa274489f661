import Foundation
import Imaging
import Testing
import TestSupport

@Suite("Thumbnail rendering", .timeLimit(.minutes(2)))
struct ThumbnailRendererTests {
    @Test("every good corpus image fits the size, is upright and carries no metadata", arguments: Corpus.goodNames)
    func goodImagesRender(name: String) throws {
        let path = try Corpus.file("good/\(name)").path(percentEncoded: false)
        let source = try ImageProbe.header(ofFileAt: path)
        let thumbnail = try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200)
        #expect(max(thumbnail.width, thumbnail.height) <= 200)
        #expect(max(thumbnail.width, thumbnail.height) >= 199)
        #expect((thumbnail.width > thumbnail.height) == (source.displayWidth > source.displayHeight))
        #expect(EncodedImage.metadataMarkers(in: Data(thumbnail.data)).isEmpty)
        #expect(thumbnail.encoding == (source.hasAlpha ? .webp : .jpeg))
    }

    @Test("an image stored landscape with EXIF orientation 6 becomes a portrait thumbnail without EXIF")
    func orientationIsApplied() throws {
        let path = try Corpus.file("special/orientation-6.jpg").path(percentEncoded: false)
        let thumbnail = try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200)
        #expect(thumbnail.height == 200)
        #expect(thumbnail.width < thumbnail.height)
        let original = try Data(contentsOf: Corpus.file("special/orientation-6.jpg"))
        #expect(EncodedImage.metadataMarkers(in: original).contains("EXIF"))
        #expect(EncodedImage.metadataMarkers(in: Data(thumbnail.data)).isEmpty)
    }

    @Test("special corpus formats render", arguments: ["baseline.jpg", "progressive.jpg", "photo.heic", "photo.png", "seed-3.7mb.jpg", "large-16mb.jpg"])
    func specialFormatsRender(name: String) throws {
        let thumbnail = try ThumbnailRenderer.render(fileAt: Corpus.file("special/\(name)").path(percentEncoded: false), maxPixelSize: 400)
        #expect(max(thumbnail.width, thumbnail.height) == 400)
        #expect(thumbnail.encoding == .jpeg)
        #expect(EncodedImage.metadataMarkers(in: Data(thumbnail.data)).isEmpty)
    }

    @Test("CMYK and grayscale JPEG, 16-bit PNG, GIF, TIFF and AVIF render to 8-bit sRGB", arguments: ImageVariants.all)
    func formatVariantsRender(variant: ImageVariants.Variant) async throws {
        let directory = try TemporaryDirectory("variants")
        let file = try await ImageVariants.make(variant, in: directory.url)
        let thumbnail = try ThumbnailRenderer.render(fileAt: file.path(percentEncoded: false), maxPixelSize: 200)
        #expect(thumbnail.width == 200)
        #expect(thumbnail.encoding == .jpeg)
        let written = directory.appending("thumb.jpg")
        try Data(thumbnail.data).write(to: written)
        let header = try ImageProbe.header(ofFileAt: written.path(percentEncoded: false))
        #expect(header.format == .jpeg)
    }

    @Test("images with alpha become WebP by default, PNG when asked")
    func alphaImagesKeepAlpha() throws {
        let path = try Corpus.file("good/Flow.png").path(percentEncoded: false)
        #expect(try ImageProbe.header(ofFileAt: path).hasAlpha)
        let webp = try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200)
        #expect(webp.encoding == .webp)
        #expect(EncodedImage.metadataMarkers(in: Data(webp.data)).isEmpty)
        // The metadata-free WebP still decodes fully, alpha included.
        let directory = try TemporaryDirectory("webp")
        let written = directory.appending("thumb.webp")
        try Data(webp.data).write(to: written)
        #expect(try ImageProbe.header(ofFileAt: written.path(percentEncoded: false)).hasAlpha)
        #expect(try ThumbnailRenderer.render(fileAt: written.path(percentEncoded: false), maxPixelSize: 100).encoding == .webp)
        let png = try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200, options: .init(alphaEncoding: .png))
        #expect(png.encoding == .png)
        #expect(EncodedImage.metadataMarkers(in: Data(png.data)).isEmpty)
    }

    // How fast is measured in `make bench`, not asserted here (a loaded CI machine is no clock);
    // that no pixel of the bomb is decoded is proved by the pixel-limit test below and by the
    // CLI test that measures the failing process's peak memory.
    @Test("every bad corpus file is a typed error", arguments: Corpus.badNames)
    func badFilesAreTypedErrors(name: String) throws {
        let path = try Corpus.file("bad/\(name)").path(percentEncoded: false)
        #expect(throws: ImagingError.self) { try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200) }
    }

    @Test("the pixel limit is decided from the header: the 900-megapixel PNG is refused undecoded")
    func bombIsRefusedByHeader() throws {
        let path = try Corpus.file("bad/bomb.png").path(percentEncoded: false)
        #expect(throws: ImagingError.tooManyPixels(path: path, pixels: 900_000_000, limit: 100_000_000)) {
            try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200)
        }
        let tight = ThumbnailRenderer.Options(limits: ImageLimits(maximumPixels: 1_000_000))
        #expect(throws: ImagingError.self) {
            try ThumbnailRenderer.render(fileAt: Corpus.file("special/seed-3.7mb.jpg").path(percentEncoded: false), maxPixelSize: 200, options: tight)
        }
    }

    @Test("a render cancelled before it starts does no work")
    func cancelledBeforeStart() throws {
        let cancellation = RenderCancellation()
        cancellation.cancel()
        #expect(throws: ImagingError.cancelled) {
            try ThumbnailRenderer.render(fileAt: Corpus.file("special/large-16mb.jpg").path(percentEncoded: false),
                                         maxPixelSize: 2048, cancellation: cancellation)
        }
    }
}
