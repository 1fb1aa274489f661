@testable import Imaging
import Foundation
import Testing
import TestSupport

/// The identifier that pairs a Live Photo's still with its clip: read from the still's EXIF
/// (Apple's maker note, by our own reader and through libvips for a HEIC) and from the clip's
/// QuickTime tags; anything malformed in someone else's file is no identifier.
@Suite("Live Photo identifiers", .timeLimit(.minutes(1)))
struct LivePhotoIdentifierTests {
    static let heicIdentifier = "1F6C3E2A-5B7D-4C11-9E0F-2A3B4C5D6E7F"
    static let jpegIdentifier = "7A0B1C2D-3E4F-4A5B-8C6D-7E8F9A0B1C2D"

    static func path(_ name: String) throws -> String { try Corpus.file("live/\(name)").path(percentEncoded: false) }

    @Test func aHEICStillCarriesItsIdentifierThroughLibvips() throws {
        let header = try ImageProbe.header(ofFileAt: try Self.path("IMG_0001.HEIC"))
        #expect(header.format == .heif)
        #expect(header.contentIdentifier == Self.heicIdentifier)
    }

    @Test func aJPEGStillCarriesItsIdentifierAndOurReaderAgreesWithLibvips() throws {
        let path = try Self.path("IMG_0002.JPG")
        let ours = try #require(JPEGHeaderReader.header(ofFileAt: path))
        #expect(ours.contentIdentifier == Self.jpegIdentifier)
        #expect(ours == (try ImageProbe.libvipsHeader(ofFileAt: path)))
    }

    @Test func eachClipCarriesItsStillsIdentifier() async throws {
        for (clip, identifier) in [("IMG_0001.MOV", Self.heicIdentifier), ("IMG_0002.MOV", Self.jpegIdentifier)] {
            let path = try Self.path(clip)
            let header = try await OwnThread.run { try VideoProbe.header(ofFileAt: path) }
            #expect(header.contentIdentifier == identifier)
        }
    }

    @Test func photosAndClipsThatAreNoLivePhotoCarryNone() async throws {
        #expect(try ImageProbe.header(ofFileAt: try Corpus.file("special/orientation-6.jpg").path(percentEncoded: false)).contentIdentifier == nil)
        #expect(try ImageProbe.header(ofFileAt: try Corpus.file("special/photo.heic").path(percentEncoded: false)).contentIdentifier == nil)
        let clip = try Corpus.file("video/clip-hevc.mov").path(percentEncoded: false)
        #expect(try await OwnThread.run { try VideoProbe.header(ofFileAt: clip) }.contentIdentifier == nil)
    }

    // MARK: - Hostile maker notes

    /// Apple's maker note, big-endian: header, an IFD of one entry (`tag`, `format`, `count`,
    /// the value or its offset `valueOffset`), then `data`.
    static func makerNote(tag: UInt16 = 0x0011, format: UInt16 = 2, count: UInt32, valueOffset: UInt32 = 32, data: [UInt8],
                          header: [UInt8] = Array("Apple iOS\0".utf8) + [0, 1] + Array("MM".utf8)) -> [UInt8] {
        func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: UInt32) -> [UInt8] { be16(UInt16(v >> 16)) + be16(UInt16(v & 0xFFFF)) }
        return header + be16(1) + be16(tag) + be16(format) + be32(count) + be32(valueOffset) + be32(0) + data
    }

    @Test func aWellFormedNoteIsRead() {
        let text = Array(Self.heicIdentifier.utf8) + [0]
        #expect(LivePhotoIdentifier.readingMakerNote(Self.makerNote(count: UInt32(text.count), data: text)) == Self.heicIdentifier)
    }

    @Test("a maker note that lies is no identifier", arguments: [
        ("an offset past the note", makerNote(count: 37, valueOffset: 4_000_000_000, data: Array(repeating: 0x41, count: 37))),
        ("a count past the note", makerNote(count: 0xFFFF_FFFF, data: Array("ABC".utf8))),
        ("another format", makerNote(format: 7, count: 4, data: Array("ABCD".utf8))),
        ("another maker", makerNote(count: 4, data: Array("ABC\0".utf8), header: Array("Nikon\0\0\0\0\0".utf8) + [0, 1] + Array("MM".utf8))),
        ("no byte order", makerNote(count: 4, data: Array("ABC\0".utf8), header: Array("Apple iOS\0".utf8) + [0, 1] + Array("XX".utf8))),
        ("too long", makerNote(count: 101, data: Array(repeating: 0x41, count: 100) + [0])),
        ("a path", makerNote(count: 12, data: Array("../../etc/x\0".utf8))),
        ("a terminal escape", makerNote(count: 8, data: [0x1B] + Array("[31mAB\0".utf8))),
        ("empty", makerNote(count: 1, valueOffset: 0, data: [])),
        ("cut short", Array(makerNote(count: 37, data: Array(repeating: 0x41, count: 37)).prefix(20))),
    ])
    func lyingNotesAreRefused(_ label: String, note: [UInt8]) {
        #expect(LivePhotoIdentifier.readingMakerNote(note) == nil, "\(label)")
    }

    @Test func anEXIFBlockWithoutAMakerNoteOrWithALoopingPointerHasNone() {
        #expect(LivePhotoIdentifier.reading(inEXIF: Array("Exif\0\0MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]) == nil)
        // IFD0's EXIF pointer naming IFD0 itself: one lookup each, no loop.
        let looping: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x87, 0x69, 0, 4, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0]
        #expect(LivePhotoIdentifier.reading(inEXIF: looping) == nil)
        #expect(LivePhotoIdentifier.reading(inEXIF: []) == nil)
    }

    @Test func onlyLettersDigitsAndHyphensUpToSixtyFourCount() {
        #expect(LivePhotoIdentifier.validated("AB-12-cd") == "AB-12-cd")
        #expect(LivePhotoIdentifier.validated("") == nil)
        #expect(LivePhotoIdentifier.validated(String(repeating: "A", count: 65)) == nil)
        #expect(LivePhotoIdentifier.validated("A B") == nil)
        #expect(LivePhotoIdentifier.validated("É") == nil)
    }
}
