import Foundation
@testable import Imaging
import Testing

/// The arithmetic an ``ImageHeader`` does from what it read: which orientations swap the
/// sides, the upright size, the pixel count and the decoded size a render is bounded by; and
/// its JSON form. No file is read: headers are made from their fields.
@Suite("Image header arithmetic")
struct ImageHeaderTests {
    static func header(width: Int = 4000, height: Int = 3000, orientation: Int = 1, bands: Int = 3, bytesPerBand: Int = 1) -> ImageHeader {
        ImageHeader(format: .jpeg, width: width, height: height, orientation: orientation, hasAlpha: false, frameCount: 1,
                    bands: bands, bytesPerBand: bytesPerBand)
    }

    @Test("orientations 5 to 8 swap width and height when shown upright; 1 to 4 keep them", arguments: 1...8)
    func transposedOrientations(orientation: Int) {
        let header = Self.header(width: 4000, height: 3000, orientation: orientation)
        let swaps = orientation >= 5
        #expect(header.isTransposed == swaps)
        #expect(header.displayWidth == (swaps ? 3000 : 4000))
        #expect(header.displayHeight == (swaps ? 4000 : 3000))
        #expect(header.pixelCount == 12_000_000, "orientation never changes the pixel count")
    }

    @Test("an orientation outside 1...8 is taken as upright", arguments: [0, 9, -1, 100])
    func outOfRangeOrientationIsUpright(orientation: Int) {
        let header = Self.header(width: 10, height: 20, orientation: orientation)
        #expect(!header.isTransposed)
        #expect(header.displayWidth == 10 && header.displayHeight == 20)
    }

    @Test("a square image is the same size upright whatever its orientation", arguments: 1...8)
    func squareIsUnchanged(orientation: Int) {
        let header = Self.header(width: 512, height: 512, orientation: orientation)
        #expect(header.displayWidth == 512 && header.displayHeight == 512)
    }

    @Test("a new header defaults to three bands of one byte: RGB, 8-bit")
    func defaultBands() {
        let header = ImageHeader(format: .png, width: 3, height: 2, orientation: 1, hasAlpha: false, frameCount: 1)
        #expect(header.bands == 3 && header.bytesPerBand == 1)
        #expect(header.decodedByteCount == 18)
    }

    @Test("the decoded size is width × height × bands × bytes per band", arguments: [
        (1, 1, 1, 1, Int64(1)), (4000, 3000, 3, 1, 36_000_000), (4000, 3000, 4, 2, 96_000_000),
        (100, 100, 1, 4, 40_000), (0, 5000, 3, 1, 0),
    ] as [(Int, Int, Int, Int, Int64)])
    func decodedSize(width: Int, height: Int, bands: Int, bytesPerBand: Int, expected: Int64) {
        #expect(Self.header(width: width, height: height, bands: bands, bytesPerBand: bytesPerBand).decodedByteCount == expected)
    }

    @Test("the decoded size of a header declaring the largest sizes is computed in 64 bits without overflow")
    func decodedSizeOfHugeHeader() {
        // What a hostile PNG may declare: 2^31 - 1 on each side, 16-bit RGBA.
        let side = Int(Int32.max)
        let header = Self.header(width: side, height: 1, bands: 4, bytesPerBand: 2)
        #expect(header.decodedByteCount == Int64(side) * 8)
        let bomb = Self.header(width: 1_000_000, height: 1_000_000, bands: 4, bytesPerBand: 2)
        #expect(bomb.decodedByteCount == 8_000_000_000_000)
    }

    @Test("a header survives JSON with every field, formats by their loader names")
    func codableRoundTrip() throws {
        let header = ImageHeader(format: .avif, width: 640, height: 480, orientation: 6, hasAlpha: true, frameCount: 3,
                                 bands: 4, bytesPerBand: 2)
        let data = try JSONEncoder().encode(header)
        #expect(try JSONDecoder().decode(ImageHeader.self, from: data) == header)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? String == "avif")
        #expect(Set(object.keys) == ["format", "width", "height", "orientation", "hasAlpha", "frameCount", "bands", "bytesPerBand"])
    }
}
