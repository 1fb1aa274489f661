@testable import AttachmentStore
import Crypto
import Foundation
import Testing

/// The store's identifiers as values: which strings a ``BlobHash`` and an ``UploadID`` accept
/// (and so which a request or a peer can never smuggle in), how a hash is made from a digest,
/// shortened, ordered and coded; and what ``NoteID`` and ``AttachmentID`` make.
@Suite("Identifier parsing")
struct IdentifierParsingTests {
    static let valid = String(repeating: "0123456789abcdef", count: 4)

    @Test("a blob hash is exactly 64 lowercase hexadecimal characters", arguments: [
        (valid, true), (String(repeating: "f", count: 64), true), (String(repeating: "0", count: 64), true),
        (String(valid.dropLast()), false), (valid + "0", false), ("", false),
        (valid.uppercased(), false), (String(valid.dropLast()) + "F", false), (String(valid.dropLast()) + "g", false),
        (String(valid.dropLast()) + " ", false), (" " + String(valid.dropLast()), false),
        (String(valid.dropLast(2)) + "é", false),  // 64 bytes, 63 characters
        (String(valid.dropLast(4)) + "０１", false),  // full-width digits
        ("sha256:" + String(valid.dropLast(7)), false), ("../../" + String(valid.dropLast(6)), false),
    ] as [(String, Bool)])
    func blobHashForm(text: String, valid: Bool) {
        let hash = BlobHash(rawValue: text)
        #expect((hash != nil) == valid, "\(text)")
        if let hash { #expect(hash.rawValue == text && hash.description == text) }
    }

    @Test("a hash made from a digest is its lowercase hex, leading zeros kept", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("attachment", String(SHA256.hash(data: Data("attachment".utf8)).map { String(format: "%02x", $0) }.joined())),
    ])
    func hashFromDigest(input: String, expected: String) throws {
        let hash = BlobHash(digest: SHA256.hash(data: Data(input.utf8)))
        #expect(hash.rawValue == expected)
        #expect(BlobHash(rawValue: hash.rawValue) == hash, "a computed hash is always well formed")
    }

    @Test("digests with bytes below 16 keep both hex digits of every byte")
    func smallBytesArePadded() throws {
        // Search a few inputs for a digest starting with a byte below 0x10.
        let input = try #require((0..<10_000).lazy.map { "n\($0)" }.first { Array(SHA256.hash(data: Data($0.utf8)))[0] < 0x10 })
        let hash = BlobHash(digest: SHA256.hash(data: Data(input.utf8)))
        #expect(hash.rawValue.hasPrefix("0"))
        #expect(hash.rawValue.utf8.count == 64)
    }

    @Test("the short form is the first twelve characters")
    func shortForm() throws {
        let hash = try #require(BlobHash(rawValue: Self.valid))
        #expect(hash.short == "0123456789ab")
    }

    @Test("hashes order as their text, so listings sort the same in every catalog")
    func ordering() throws {
        let texts = [String(repeating: "a", count: 64), String(repeating: "0", count: 64), Self.valid,
                     String(repeating: "f", count: 63) + "0", "0" + String(repeating: "f", count: 63)]
        let hashes = try texts.map { try #require(BlobHash(rawValue: $0)) }
        #expect(hashes.sorted().map(\.rawValue) == texts.sorted())
        #expect(!(hashes[0] < hashes[0]))
    }

    @Test("a hash travels in JSON as a plain string, and a malformed one does not decode")
    func jsonForm() throws {
        let hash = try #require(BlobHash(rawValue: Self.valid))
        let data = try JSONEncoder().encode([hash])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(Self.valid)\"]")
        #expect(try JSONDecoder().decode([BlobHash].self, from: data) == [hash])
        for bad in ["[\"\(Self.valid.uppercased())\"]", "[\"abc\"]", "[64]", "[null]"] {
            #expect(throws: DecodingError.self, "\(bad)") { try JSONDecoder().decode([BlobHash].self, from: Data(bad.utf8)) }
        }
    }

    @Test("new note and attachment ids are distinct lowercase UUIDs, the form a peer's validation requires")
    func madeIdentifiers() {
        let notes = (0..<200).map { _ in NoteID.make() }
        let attachments = (0..<200).map { _ in AttachmentID.make() }
        #expect(Set(notes).count == 200 && Set(attachments).count == 200)
        for id in notes.map(\.rawValue) + attachments.map(\.rawValue) {
            #expect(id == id.lowercased() && UUID(uuidString: id) != nil, "\(id)")
            #expect(SyncChangeValidation.id(id, "id") == nil, "\(id)")
        }
    }

    @Test("note and attachment ids wrap any text unchecked (prefixes are resolved by the store), and code as plain strings")
    func wrappedIdentifiers() throws {
        for text in ["3f2a", "", "NOT-A-UUID", "a/b"] {
            #expect(NoteID(rawValue: text).description == text)
            #expect(AttachmentID(rawValue: text).rawValue == text)
        }
        let data = try JSONEncoder().encode(["note": NoteID(rawValue: "n-1")])
        #expect(String(decoding: data, as: UTF8.self) == "{\"note\":\"n-1\"}")
        #expect(try JSONDecoder().decode([AttachmentID].self, from: Data("[\"a-1\"]".utf8)) == [AttachmentID(rawValue: "a-1")])
    }

    @Test("an upload id is exactly 32 lowercase hex digits, so it is always a safe file name", arguments: [
        ("0123456789abcdef0123456789abcdef", true), (String(repeating: "0", count: 32), true),
        ("0123456789abcdef0123456789abcde", false), ("0123456789abcdef0123456789abcdef0", false),
        ("01234567-89ab-cdef-0123-456789abcdef", false), ("0123456789abcdef0123456789abcdeg", false),
        ("..%2f..%2f456789abcdef0123456789ab", false), ("0123456789abcdef0123456789abcd\u{0}f", false),
    ] as [(String, Bool)])
    func uploadIDForm(text: String, valid: Bool) {
        #expect((UploadID(rawValue: text) != nil) == valid, "\(text)")
    }

    @Test("new upload ids are distinct, accepted by their own parser, and a UUID without its dashes")
    func madeUploadIDs() throws {
        let ids = (0..<200).map { _ in UploadID.make() }
        #expect(Set(ids).count == 200)
        for id in ids {
            #expect(UploadID(rawValue: id.rawValue) == id)
            #expect(!id.rawValue.contains("-") && id.description == id.rawValue)
        }
        #expect(try JSONDecoder().decode([UploadID].self, from: JSONEncoder().encode(ids)) == ids)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([UploadID].self, from: Data("[\"../x\"]".utf8)) }
    }

    @Test("a checksum is a SHA-256 digest of exactly 32 bytes", arguments: [0, 1, 16, 31, 33, 64])
    func checksumLength(count: Int) {
        #expect(UploadChecksum(sha256: [UInt8](repeating: 7, count: count)) == nil)
        #expect(UploadChecksum(sha256: [UInt8](repeating: 7, count: 32))?.sha256.count == 32)
    }
}
