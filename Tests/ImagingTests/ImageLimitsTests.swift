@testable import Imaging
import Glibc
import Testing

/// ``ImageLimits``: its defaults, where exactly each bound falls, which bound is reported
/// when several are passed, and the messages of the errors it throws. Headers are made from
/// their fields; nothing is decoded.
@Suite("Image limits")
struct ImageLimitsTests {
    static func header(width: Int, height: Int, bands: Int = 3, bytesPerBand: Int = 1) -> ImageHeader {
        ImageHeader(format: .png, width: width, height: height, orientation: 1, hasAlpha: bands == 4, frameCount: 1,
                    bands: bands, bytesPerBand: bytesPerBand)
    }

    @Test("the defaults are 100 megapixels, 256 MiB of file and 1 GiB decoded")
    func defaults() {
        let limits = ImageLimits()
        #expect(limits.maximumPixels == 100_000_000)
        #expect(limits.maximumBytes == 268_435_456)
        #expect(limits.maximumDecodedBytes == 1_073_741_824)
        #expect(ThumbnailRenderer.Options().limits == limits)
    }

    @Test("a header exactly at the pixel limit passes; one pixel more is refused, naming both counts")
    func pixelBoundary() throws {
        let limits = ImageLimits(maximumPixels: 1_000_000, maximumDecodedBytes: .max)
        try limits.check(Self.header(width: 1000, height: 1000), path: "/p.png")
        #expect(throws: ImagingError.tooManyPixels(path: "/p.png", pixels: 1_000_001, limit: 1_000_000)) {
            try limits.check(Self.header(width: 1_000_001, height: 1), path: "/p.png")
        }
    }

    @Test("a header exactly at the decoded-size limit passes; one byte more is refused, naming both sizes")
    func decodedBoundary() throws {
        let limits = ImageLimits(maximumPixels: .max, maximumDecodedBytes: 300)
        try limits.check(Self.header(width: 10, height: 10), path: "/d.png")  // 10 × 10 × 3 = 300
        #expect(throws: ImagingError.tooMuchMemory(path: "/d.png", bytes: 303, limit: 300)) {
            try limits.check(Self.header(width: 101, height: 1), path: "/d.png")
        }
    }

    @Test("under the default limits the decoded bound is reached within 100 megapixels only past 10.7 bytes a pixel")
    func defaultDecodedBound() throws {
        let limits = ImageLimits()
        // 100 MP of 16-bit RGB (600 MB) and of 16-bit RGBA (800 MB) both fit in 1 GiB.
        try limits.check(Self.header(width: 10_000, height: 10_000, bands: 3, bytesPerBand: 2), path: "rgb16")
        try limits.check(Self.header(width: 10_000, height: 10_000, bands: 4, bytesPerBand: 2), path: "rgba16")
        // 100 MP of float RGB (1.2 GB) does not.
        #expect(throws: ImagingError.tooMuchMemory(path: "rgbf", bytes: 1_200_000_000, limit: 1 << 30)) {
            try limits.check(Self.header(width: 10_000, height: 10_000, bands: 3, bytesPerBand: 4), path: "rgbf")
        }
        // With the pixel limit raised, 150 MP of 16-bit RGBA (1.2 GB) is refused for its memory.
        #expect(throws: ImagingError.tooMuchMemory(path: "rgba16", bytes: 1_200_000_000, limit: 1 << 30)) {
            try ImageLimits(maximumPixels: 150_000_000).check(Self.header(width: 15_000, height: 10_000, bands: 4, bytesPerBand: 2),
                                                            path: "rgba16")
        }
    }

    @Test("a header over both bounds is reported for its pixels, the cheaper check")
    func pixelsReportedFirst() {
        let limits = ImageLimits(maximumPixels: 10, maximumDecodedBytes: 10)
        #expect(throws: ImagingError.tooManyPixels(path: "x", pixels: 100, limit: 10)) {
            try limits.check(Self.header(width: 10, height: 10), path: "x")
        }
    }

    @Test("an empty image passes any limits, even limits of zero")
    func emptyImagePasses() throws {
        try ImageLimits(maximumPixels: 0, maximumBytes: 0, maximumDecodedBytes: 0).check(Self.header(width: 0, height: 0), path: "e")
    }

    @Test("limit errors speak in megapixels and MiB, rounded down, and say nothing was decoded")
    func limitMessages() {
        let pixels = ImagingError.tooManyPixels(path: "/in/bomb.png", pixels: 900_000_000, limit: 100_000_000)
        #expect(pixels.description == "/in/bomb.png: it declares 900 megapixels, over the limit of 100; nothing was decoded")
        let memory = ImagingError.tooMuchMemory(path: "/in/deep.png", bytes: 1_200_000_000, limit: 1 << 30)
        #expect(memory.description == "/in/deep.png: it would take 1144 MiB decoded, over the limit of 1024 MiB; nothing was decoded")
        let bytes = ImagingError.tooManyBytes(path: "/in/big.jpg", bytes: 300_000_000, limit: 268_435_456)
        #expect(bytes.description == "/in/big.jpg: it is 300000000 bytes, over the limit of 268435456; nothing was decoded")
    }

    @Test("the other imaging errors name the file and the cause, or how to fix the installation")
    func otherMessages() {
        #expect(ImagingError.unsupportedFormat(path: "/a.svg").description == "/a.svg: it is not an image format this store can read")
        // libvips names the file itself; the path is said once.
        let truncated = ImagingError.unreadable(path: "/t.jpg", cause: .libvips("/t.jpg: premature end of JPEG"))
        #expect(truncated.description == "/t.jpg: premature end of JPEG")
        #expect(truncated.reason == "premature end of JPEG")
        let missing = ImagingError.unreadable(path: "/gone.jpg", cause: .system(call: "stat", errno: ENOENT))
        #expect(missing.description == "/gone.jpg: stat failed: No such file or directory")
        #expect(ImagingError.largerThanAllowed(path: "/p.jpg", width: 900, height: 600, maxPixelSize: 400).reason
            == "it is 900x600, larger than 400 pixels on its longest side")
        #expect(ImagingError.libraryUnavailable("no loaders").description.contains("apt-get install libvips42"))
        #expect(ImagingError.cancelled.description == "image processing was cancelled")
    }
}
