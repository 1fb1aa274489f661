@testable import AttachmentServer
import AttachmentStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

/// The tus 1.0 headers read and written by ``TusProtocol``, on requests made in memory: the
/// version check, byte counts, `Upload-Metadata` (parsed, refused, and written back), the
/// `Upload-Checksum` digest, and `Upload-Expires` dates. The live protocol is exercised by
/// ``ResumableUploadAPITests``; these pin each header's grammar down input by input.
@Suite("tus protocol headers")
struct TusProtocolUnitTests {
    static func request(_ headers: HTTPFields) -> Request {
        Request(head: HTTPRequest(method: .patch, scheme: "http", authority: "127.0.0.1", path: "/api/uploads/x", headerFields: headers),
                body: RequestBody(buffer: ByteBuffer()))
    }

    static func code<T>(_ body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as ServerError {
            return error.code
        } catch {
            return "unexpected \(error)"
        }
    }

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test("only Tus-Resumable: 1.0.0 is spoken: another version is a 412, none or a malformed one a 400, each naming the version",
          arguments: [
            (nil, 400, "tus_version_required"), ("0.2.2", 412, "tus_version_unsupported"), ("2.0.0", 412, "tus_version_unsupported"),
            ("1.0", 400, "tus_version_invalid"), ("", 400, "tus_version_invalid"), ("1.0.0.0", 400, "tus_version_invalid"),
            ("x.y.z", 400, "tus_version_invalid"),
          ] as [(String?, Int, String)])
    func version(given: String?, status: Int, code: String) throws {
        try TusProtocol.requireVersion(Self.request([TusProtocol.tusResumable: "1.0.0"]))
        var headers: HTTPFields = [:]
        if let given { headers[TusProtocol.tusResumable] = given }
        do {
            try TusProtocol.requireVersion(Self.request(headers))
            Issue.record("\(headers) accepted")
        } catch let error as ServerError {
            #expect(error.status.code == status)
            #expect(error.code == code)
            #expect(error.headers[TusProtocol.tusVersion] == "1.0.0")
        }
    }

    @Test("a byte count is a run of at most 19 ASCII digits that fits in Int64", arguments: [
        ("0", 0), ("1", 1), ("007", 7), ("9223372036854775807", Int64.max), ("123456789", 123_456_789),
    ] as [(String, Int64)])
    func byteCounts(text: String, value: Int64) throws {
        #expect(try TusProtocol.byteCount(TusProtocol.uploadOffset, in: Self.request([TusProtocol.uploadOffset: text])) == value)
    }

    @Test("anything else in a byte count is a 400 invalid_tus_header", arguments: [
        "", "-1", "+1", "1 2", "1.5", "1e3", "0x10", "9223372036854775808", "99999999999999999999", "١٢", "１",
    ])
    func badByteCounts(text: String) {
        #expect(Self.code { try TusProtocol.byteCount(TusProtocol.uploadLength, in: Self.request([TusProtocol.uploadLength: text])) }
            == "invalid_tus_header")
    }

    @Test("a missing byte-count header is nil, not an error")
    func missingByteCount() throws {
        #expect(try TusProtocol.byteCount(TusProtocol.uploadLength, in: Self.request([:])) == nil)
    }

    @Test("Upload-Metadata is comma-separated key and base64 value pairs; a key alone has an empty value")
    func metadata() throws {
        let header = "noteId \(Self.base64("0b7e1c7a")), filename \(Self.base64("Ünïcode photo.jpg")),is_confidential ,  empty"
        let parsed = try TusProtocol.metadata(of: Self.request([TusProtocol.uploadMetadata: header]))
        #expect(parsed == ["noteId": "0b7e1c7a", "filename": "Ünïcode photo.jpg", "is_confidential": "", "empty": ""])
        #expect(try TusProtocol.metadata(of: Self.request([:])) == [:])
        #expect(try TusProtocol.metadata(of: Self.request([TusProtocol.uploadMetadata: ""])) == [:])
    }

    @Test("a value in another encoding than UTF-8 keeps what can be read")
    func metadataInOtherEncodings() throws {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9]).base64EncodedString()  // "café" in ISO 8859-1
        let parsed = try TusProtocol.metadata(of: Self.request([TusProtocol.uploadMetadata: "filename \(latin1)"]))
        #expect(parsed["filename"] == "caf\u{FFFD}")
    }

    @Test("malformed Upload-Metadata is a 400 invalid_tus_header", arguments: [
        "a \(base64("x")) extra", "a \(base64("1")),a \(base64("2"))", "a,a", "a not*base64", "a, ,b", "k \(base64("x")) \(base64("y"))",
        String(repeating: "k", count: 4_097),
    ])
    func badMetadata(header: String) {
        #expect(Self.code { try TusProtocol.metadata(of: Self.request([TusProtocol.uploadMetadata: header])) } == "invalid_tus_header",
                "\(header.prefix(40))")
    }

    @Test("metadata up to 4096 bytes is read; one byte more is refused")
    func metadataSizeLimit() throws {
        let value = Self.base64(String(repeating: "x", count: 3_000))
        /// `k`, spaces, and the value: `total` bytes in all.
        func header(_ total: Int) -> String { "k" + String(repeating: " ", count: total - 1 - value.utf8.count) + value }
        #expect(header(TusProtocol.maxMetadataBytes).utf8.count == TusProtocol.maxMetadataBytes)
        let read = try TusProtocol.metadata(of: Self.request([TusProtocol.uploadMetadata: header(TusProtocol.maxMetadataBytes)]))
        #expect(read["k"] == String(repeating: "x", count: 3_000))
        #expect(Self.code { try TusProtocol.metadata(of: Self.request([TusProtocol.uploadMetadata: header(TusProtocol.maxMetadataBytes + 1)])) }
            == "invalid_tus_header")
    }

    @Test("metadata written back is sorted by key, with empty values as bare keys, and parses to the same pairs", arguments: [
        [:], ["filename": "a.jpg"], ["noteId": "n", "filename": "photo, with comma.jpg", "flag": ""], ["z": "ü", "a": "b c"],
    ] as [[String: String]])
    func metadataRoundTrip(pairs: [String: String]) throws {
        let header = TusProtocol.metadataHeader(pairs)
        #expect(header.split(separator: ",").map { String($0.split(separator: " ").first ?? "") } == pairs.keys.sorted())
        #expect(try TusProtocol.metadata(of: Self.request([TusProtocol.uploadMetadata: header])) == pairs)
    }

    @Test("the written header of known pairs is exact")
    func metadataHeaderText() {
        #expect(TusProtocol.metadataHeader(["filename": "a.jpg", "flag": ""]) == "filename YS5qcGc=,flag")
    }

    @Test("Upload-Checksum is sha256 and a base64 SHA-256 digest; the algorithm name is not case-sensitive")
    func checksum() throws {
        // SHA-256 of "hello".
        let digest: [UInt8] = [44, 242, 77, 186, 95, 176, 163, 14, 38, 232, 59, 42, 197, 185, 226, 158,
                               27, 22, 30, 92, 31, 167, 66, 94, 115, 4, 51, 98, 147, 139, 152, 36]
        let text = Data(digest).base64EncodedString()
        #expect(try TusProtocol.checksum(of: Self.request([TusProtocol.uploadChecksum: "sha256 \(text)"]))?.sha256 == digest)
        #expect(try TusProtocol.checksum(of: Self.request([TusProtocol.uploadChecksum: "SHA256 \(text)"]))?.sha256 == digest)
        #expect(try TusProtocol.checksum(of: Self.request([:])) == nil)
    }

    @Test("another algorithm or shape is checksum_algorithm_unsupported; a digest that is not 32 base64 bytes is invalid_tus_header", arguments: [
        ("md5 \(Data(repeating: 1, count: 16).base64EncodedString())", "checksum_algorithm_unsupported"),
        ("sha1 \(Data(repeating: 1, count: 20).base64EncodedString())", "checksum_algorithm_unsupported"),
        ("sha256", "checksum_algorithm_unsupported"),
        ("sha256 a b", "checksum_algorithm_unsupported"),
        ("", "checksum_algorithm_unsupported"),
        ("sha256 not-base64!", "invalid_tus_header"),
        ("sha256 \(Data(repeating: 1, count: 31).base64EncodedString())", "invalid_tus_header"),
        ("sha256 \(Data(repeating: 1, count: 33).base64EncodedString())", "invalid_tus_header"),
    ])
    func badChecksums(header: String, code: String) {
        #expect(Self.code { try TusProtocol.checksum(of: Self.request([TusProtocol.uploadChecksum: header])) } == code)
    }

    @Test("Upload-Expires is an RFC 9110 HTTP date in GMT with English names", arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (1_795_000_000, "Wed, 18 Nov 2026 11:06:40 GMT"),
    ] as [(TimeInterval, String)])
    func httpDates(seconds: TimeInterval, text: String) {
        #expect(TusProtocol.httpDate(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("the server announces version 1.0.0, its four extensions and sha256")
    func announcedCapabilities() {
        #expect(TusProtocol.version == "1.0.0")
        #expect(Set(TusProtocol.extensions.split(separator: ",")) == ["creation", "termination", "checksum", "expiration"])
        #expect(TusProtocol.checksumAlgorithms == "sha256")
        #expect(TusProtocol.patchMediaType == "application/offset+octet-stream")
    }
}
