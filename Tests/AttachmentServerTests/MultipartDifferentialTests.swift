@testable import AttachmentServer
import Foundation
import MultipartKit
import NIOCore
import Testing
import TestSupport

/// Our streaming multipart reader against vapor's multipart-kit on generated bodies.
///
/// We keep our own reader because multipart-kit's `MultipartParser` does not hold our limits:
/// it buffers a part's header lines without bound (a hostile client can send megabytes of one
/// header), copies the body into a new buffer at every carriage return, and cannot tell a body
/// cut short after a boundary from a complete one. It is a good reference for what a body
/// means, so both read the same bodies — with random boundaries, parts full of near-misses of
/// the delimiter, cut into random chunks — and must agree with each other and with what was
/// encoded. The seed is printed with any failure.
@Suite("Multipart reader against multipart-kit", .timeLimit(.minutes(3)))
struct MultipartDifferentialTests {
    /// One part as encoded: its field name, file name, type and bytes.
    struct Field: Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var bytes: [UInt8]
    }

    /// One generated body: the boundary, the fields, the encoded bytes cut into chunks, and where
    /// the closing delimiter ends.
    struct Case {
        var seed: UInt64
        var boundary: String
        var fields: [Field]
        var encoded: [UInt8]
        var chunks: [[UInt8]]
        var closingEnd: Int
    }

    static let boundaryCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=?")

    static func makeCase(seed: UInt64) -> Case {
        var random = SplitMix(seed: seed)
        let boundary = String((0..<Int.random(in: 1...70, using: &random)).map { _ in boundaryCharacters.randomElement(using: &random)! })
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var fields: [Field] = []
        for index in 0..<Int.random(in: 1...5, using: &random) {
            var bytes: [UInt8] = []
            let length = [0, 1, 2, 17, 255, 4096, 20_000].randomElement(using: &random)!
            while bytes.count < length {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: bytes += [0x0D, 0x0A]
                case 1: bytes += Array(delimiter.prefix(Int.random(in: 1..<delimiter.count, using: &random)))
                case 2: bytes += Array("--".utf8)
                case 3: bytes += [0x0D]
                default: bytes += (0..<Int.random(in: 1...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                }
            }
            bytes = Array(bytes.prefix(length))
            // The delimiter itself may not occur in a part (the client picks a boundary that does not).
            while let range = firstRange(of: delimiter, in: bytes) { bytes.remove(at: range.lowerBound + 2) }
            if bytes.count >= delimiter.count - 2, Array(bytes.prefix(delimiter.count - 2)) == Array(delimiter.dropFirst(2)) { bytes.removeFirst() }
            let isFile = Bool.random(using: &random)
            fields.append(Field(name: "field\(index)", filename: isFile ? "photo \(index).jpg" : nil,
                                contentType: isFile ? "image/jpeg" : nil, bytes: bytes))
        }
        var encoded: [UInt8] = Bool.random(using: &random) ? Array("a preamble to ignore\r\n".utf8) : []
        for field in fields {
            encoded += Array("--\(boundary)\r\n".utf8)
            var disposition = "Content-Disposition: form-data; name=\"\(field.name)\""
            if let filename = field.filename { disposition += "; filename=\"\(filename)\"" }
            encoded += Array((disposition + "\r\n").utf8)
            if let type = field.contentType { encoded += Array("Content-Type: \(type)\r\n".utf8) }
            encoded += Array("\r\n".utf8) + field.bytes + Array("\r\n".utf8)
        }
        encoded += Array("--\(boundary)--".utf8)
        let closingEnd = encoded.count
        if Bool.random(using: &random) { encoded += Array("\r\nan epilogue to ignore".utf8) }
        var chunks: [[UInt8]] = []
        var offset = 0
        while offset < encoded.count {
            let size = [1, 2, 3, 5, 64, 1000, 4096, 65_536].randomElement(using: &random)!
            chunks.append(Array(encoded[offset..<min(offset + size, encoded.count)]))
            offset += size
        }
        return Case(seed: seed, boundary: boundary, fields: fields, encoded: encoded, chunks: chunks, closingEnd: closingEnd)
    }

    static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        var start = 0
        while start + needle.count <= haystack.count {
            var matched = 0
            while matched < needle.count, haystack[start + matched] == needle[matched] { matched += 1 }
            if matched == needle.count { return start..<start + needle.count }
            start += 1
        }
        return nil
    }

    /// Chunks handed out one by one.
    struct ChunkSequence: AsyncSequence {
        typealias Element = [UInt8]
        let chunks: [[UInt8]]
        struct AsyncIterator: AsyncIteratorProtocol {
            var remaining: ArraySlice<[UInt8]>
            mutating func next() async -> [UInt8]? { remaining.popFirst() }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
    }

    /// What our reader reads from `chunks`.
    static func ours(_ chunks: [[UInt8]], boundary: String) async throws -> [Field] {
        let reader = MultipartReader(boundary: boundary, body: ChunkSequence(chunks: chunks))
        var fields: [Field] = []
        while let part = try await reader.nextPart() {
            var bytes: [UInt8] = []
            for try await chunk in reader.body() { bytes += chunk }
            fields.append(Field(name: part.name ?? "", filename: part.filename, contentType: part.contentType, bytes: bytes))
        }
        return fields
    }

    /// What multipart-kit reads from `chunks`: each part's headers (by lower-cased name) and bytes.
    static func reference(_ chunks: [[UInt8]], boundary: String) throws -> [(headers: [String: String], bytes: [UInt8])] {
        final class Collected {
            var parts: [(headers: [String: String], bytes: [UInt8])] = []
            var headers: [String: String] = [:]
            var bytes: [UInt8] = []
        }
        let collected = Collected()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in collected.headers[name.lowercased()] = value }
        parser.onBody = { buffer in collected.bytes += buffer.readableBytesView }
        parser.onPartComplete = {
            collected.parts.append((collected.headers, collected.bytes))
            collected.headers = [:]
            collected.bytes = []
        }
        for chunk in chunks { try parser.execute(chunk) }
        return collected.parts
    }

    @Test("on 400 generated bodies both readers give exactly the parts that were encoded, however they are chunked")
    func agreeOnGeneratedBodies() async throws {
        for seed in UInt64(1)...400 {
            let generated = Self.makeCase(seed: seed)
            let ours = try await Self.ours(generated.chunks, boundary: generated.boundary)
            let reference = try Self.reference(generated.chunks, boundary: generated.boundary)
            #expect(ours == generated.fields, "seed \(seed): our reader differs from what was encoded")
            #expect(reference.map(\.bytes) == generated.fields.map(\.bytes), "seed \(seed): multipart-kit differs from what was encoded")
            #expect(reference.map { $0.headers["content-type"] } == ours.map(\.contentType), "seed \(seed)")
            if ours != generated.fields || reference.map(\.bytes) != ours.map(\.bytes) { return }
        }
    }

    @Test("a body cut anywhere before its closing delimiter is refused by ours as malformed, never read as complete")
    func truncatedBodiesAreRefused() async throws {
        for seed in UInt64(1001)...1150 {
            let generated = Self.makeCase(seed: seed)
            var random = SplitMix(seed: seed)
            let cut = Int.random(in: 0..<generated.closingEnd, using: &random)
            let truncated = Array(generated.encoded.prefix(cut))
            await #expect(throws: MultipartReader<ChunkSequence>.Malformed.self, "seed \(seed), cut at \(cut) of \(generated.closingEnd)") {
                _ = try await Self.ours([truncated], boundary: generated.boundary)
            }
        }
    }

    @Test("random and mutated bytes never crash or hang ours: each is read or refused as malformed")
    func mutatedBodiesAreReadOrRefused() async throws {
        for seed in UInt64(2001)...2300 {
            let generated = Self.makeCase(seed: seed)
            var random = SplitMix(seed: seed)
            var bytes = generated.encoded
            for _ in 0..<Int.random(in: 1...8, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try await Self.ours([bytes], boundary: generated.boundary)
            } catch is MultipartReader<ChunkSequence>.Malformed {
                continue
            }
        }
    }

    @Test("a header line longer than our 16 KiB limit is refused by ours; multipart-kit would buffer it whole")
    func oversizedHeaderRefused() async throws {
        let header = "X-Padding: " + String(repeating: "a", count: 1 << 20)
        let body = Array("--b\r\n\(header)\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nx\r\n--b--".utf8)
        await #expect(throws: MultipartReader<ChunkSequence>.Malformed.self) {
            _ = try await Self.ours(stride(from: 0, to: body.count, by: 4096).map { Array(body[$0..<min($0 + 4096, body.count)]) }, boundary: "b")
        }
        let reference = try Self.reference([body], boundary: "b")
        #expect(reference.first?.headers["x-padding"]?.utf8.count == 1 << 20, "multipart-kit kept the whole 1 MiB header in memory")
    }
}
