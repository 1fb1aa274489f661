import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a `multipart/form-data` body part by part as it streams in, keeping at most one
/// incoming chunk plus a boundary's length in memory.
///
/// ```swift
/// let reader = MultipartReader(boundary: boundary, body: chunks)
/// while let part = try await reader.nextPart() {
///     for try await bytes in reader.body(of: part) { ... }   // the part's bytes, streamed
/// }
/// ```
/// Not thread-safe: one task reads it from start to end.
final class MultipartReader<Base: AsyncSequence> where Base.Element: Collection, Base.Element.Element == UInt8 {
    /// The headers of one part.
    struct Part: Equatable {
        /// The form field's name.
        var name: String?
        /// The file name, for file fields (may be empty when no file was chosen).
        var filename: String?
        /// The part's declared content type.
        var contentType: String?
    }

    /// A malformed body.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private enum State {
        case preamble, afterDelimiter, headers, body, end
    }

    /// The largest header block a part may have.
    static var maximumHeaderBytes: Int { 16 << 10 }

    private var iterator: Base.AsyncIterator
    private let delimiter: [UInt8]
    private var buffer: [UInt8] = []
    private var start = 0
    private var state = State.preamble
    private var baseFinished = false
    private var partIndex = 0

    /// Reads `body` with the `boundary` from the request's content type.
    init(boundary: String, body: Base) {
        self.iterator = body.makeAsyncIterator()
        self.delimiter = Array("\r\n--\(boundary)".utf8)
        // The first delimiter may open the body without a preceding line break.
        self.buffer = [0x0D, 0x0A]
    }

    /// Skips what is left of the current part and reads the next part's headers;
    /// `nil` after the closing delimiter.
    /// - Throws: ``Malformed`` when the body ends early or its headers are not readable.
    func nextPart() async throws -> Part? {
        while true {
            switch state {
            case .end:
                return nil
            case .preamble, .body:
                if let range = find(delimiter) {
                    start = range.upperBound
                    state = .afterDelimiter
                } else {
                    // Keep only what could still be the start of a delimiter.
                    start = max(start, buffer.count - (delimiter.count - 1))
                    try await fill()
                }
            case .afterDelimiter:
                guard available >= 2 else { try await fill(); continue }
                if buffer[start] == 0x2D && buffer[start + 1] == 0x2D {
                    state = .end
                    return nil
                }
                guard let lineEnd = find([0x0D, 0x0A]) else {
                    guard available < 256 else { throw Malformed(description: "garbage after a multipart boundary") }
                    try await fill()
                    continue
                }
                start = lineEnd.upperBound
                state = .headers
            case .headers:
                guard let end = hasEmptyHeaderBlock ? start..<start + 2 : find([0x0D, 0x0A, 0x0D, 0x0A]) else {
                    guard available <= Self.maximumHeaderBytes else { throw Malformed(description: "a multipart part's headers are too long") }
                    try await fill()
                    continue
                }
                let text = String(decoding: buffer[start..<end.lowerBound], as: UTF8.self)
                start = end.upperBound
                state = .body
                partIndex += 1
                return Self.parseHeaders(text)
            }
        }
    }

    /// The bytes of the part whose headers ``nextPart()`` just returned, as a sequence of chunks.
    func body() -> PartBody { PartBody(reader: self) }

    /// The next chunk of the current part's bytes, or `nil` at its end.
    func nextBodyChunk() async throws -> [UInt8]? {
        while state == .body {
            if let range = find(delimiter) {
                let chunk = Array(buffer[start..<range.lowerBound])
                start = range.upperBound
                state = .afterDelimiter
                return chunk.isEmpty ? nil : chunk
            }
            let safeEnd = buffer.count - (delimiter.count - 1)
            if safeEnd > start {
                let chunk = Array(buffer[start..<safeEnd])
                start = safeEnd
                return chunk
            }
            try await fill()
        }
        return nil
    }

    /// A part's bytes as an asynchronous sequence.
    struct PartBody: AsyncSequence {
        typealias Element = [UInt8]
        let reader: MultipartReader

        struct AsyncIterator: AsyncIteratorProtocol {
            let reader: MultipartReader
            mutating func next() async throws -> [UInt8]? { try await reader.nextBodyChunk() }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }
    }

    // MARK: - Buffer

    private var available: Int { buffer.count - start }

    /// A part with no headers at all: its blank line follows the delimiter's line break at once.
    private var hasEmptyHeaderBlock: Bool {
        available >= 2 && buffer[start] == 0x0D && buffer[start + 1] == 0x0A
    }

    /// Appends the next incoming chunk, compacting first.
    private func fill() async throws {
        guard !baseFinished else { throw Malformed(description: "the multipart body ended before its closing boundary") }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        if let chunk = try await iterator.next() {
            buffer.append(contentsOf: chunk)
        } else {
            baseFinished = true
        }
    }

    /// The first occurrence of `needle` at or after `start` (`memchr` for its first byte, then `memcmp`).
    private func find(_ needle: [UInt8]) -> Range<Int>? {
        guard available >= needle.count, let first = needle.first else { return nil }
        let offset: Int? = buffer.withUnsafeBytes { haystack -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                let base = haystack.baseAddress!
                var position = start
                let last = buffer.count - needle.count
                while position <= last {
                    guard let hit = memchr(base + position, Int32(first), last - position + 1) else { return nil }
                    let index = UnsafeRawPointer(hit) - base
                    if memcmp(hit, pattern.baseAddress!, needle.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
        return offset.map { $0..<$0 + needle.count }
    }

    // MARK: - Headers

    /// Reads `Content-Disposition` and `Content-Type` out of a part's header block.
    static func parseHeaders(_ text: String) -> Part {
        var part = Part()
        for line in text.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-disposition":
                let parameters = HeaderParameters(value)
                part.name = parameters["name"]
                part.filename = parameters["filename"]
            case "content-type":
                part.contentType = value
            default:
                continue
            }
        }
        return part
    }
}
