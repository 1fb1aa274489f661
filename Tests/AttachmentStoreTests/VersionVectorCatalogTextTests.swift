@testable import AttachmentStore
import Foundation
import Testing

/// The `versions` column's text, written and read by hand in the plain case: the same text
/// `JSONEncoder` writes, the same vector `JSONDecoder` reads, and anything else left to them.
@Suite("Version vectors in the catalog")
struct VersionVectorCatalogTextTests {
    /// What Foundation's coders make of `vector`, the reference the hand-written path must match.
    static func foundationText(_ vector: VersionVector) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(vector), as: UTF8.self)
    }

    static func randomPeer(_ generator: inout SystemRandomNumberGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789_.ABCZ")
        return String((0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
    }

    @Test("plain vectors are written as JSONEncoder writes them and read back whole, 2,000 random ones")
    func plainVectorsMatchFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let stamps = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                ClockStamp(rawValue: String(format: "%013lld-%06d-", Int64.random(in: 0...9_999_999_999_999, using: &generator),
                                            Int.random(in: 0...999_999, using: &generator)) + Self.randomPeer(&generator))
            }
            let vector = VersionVector(stamps)
            #expect(vector.json == (try Self.foundationText(vector)))
            #expect(try VersionVector(json: vector.json) == vector)
            #expect(VersionVector.plainObject(vector.json) != nil, "a plain vector is read without a decoder")
        }
    }

    @Test("text that is not plain goes to Foundation's coders: escapes, slashes, spaces, unicode")
    func otherTextIsLeftToFoundation() throws {
        var odd = VersionVector()
        odd.stamps = ["a/b": ClockStamp(rawValue: "1-0-a/b"), "q\"uote": ClockStamp(rawValue: "2-0-x"), "é": ClockStamp(rawValue: "3-0-\u{1}")]
        #expect(odd.json == (try Self.foundationText(odd)))
        #expect(try VersionVector(json: odd.json) == odd)
        for text in [#"{ "p": "1-0-p" }"#, #"{"p":"1-0-\u0070"}"#, #"{"p":"1-0-p","p":"2-0-p"}"#, #"{"p":"1-0-p"} "#, #"{"p":1}"#, "{", #"{"p":"#] {
            #expect(VersionVector.plainObject(text) == nil, "\(text)")
        }
        #expect(try VersionVector(json: #"{ "p": "1-0-\u0070" }"#).stamps == ["p": ClockStamp(rawValue: "1-0-p")])
        #expect(throws: (any Error).self) { try VersionVector(json: #"{"p":1}"#) }
        #expect(throws: (any Error).self) { try VersionVector(json: "[") }
    }
}
