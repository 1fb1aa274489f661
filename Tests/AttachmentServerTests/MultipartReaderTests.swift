@testable import AttachmentServer
import Foundation
import Testing

@Suite("Multipart reader", .timeLimit(.minutes(3)))
struct MultipartReaderTests {
    /// Feeds `data` in chunks of `size` bytes.
    struct Chunks: AsyncSequence {
        typealias Element = [UInt8]
        let data: [UInt8]
        let size: Int
        struct AsyncIterator: AsyncIteratorProtocol {
            let data: [UInt8]
            let size: Int
            var offset = 0
            mutating func next() async -> [UInt8]? {
                guard offset < data.count else { return nil }
                defer { offset += size }
                return Array(data[offset..<Swift.min(offset + size, data.count)])
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data, size: size) }
    }

    static func read(_ body: Data, boundary: String, chunkSize: Int) async throws -> [(MultipartReader<Chunks>.Part, [UInt8])] {
        let reader = MultipartReader(boundary: boundary, body: Chunks(data: Array(body), size: chunkSize))
        var parts: [(MultipartReader<Chunks>.Part, [UInt8])] = []
        while let part = try await reader.nextPart() {
            var bytes: [UInt8] = []
            for try await chunk in reader.body() { bytes += chunk }
            parts.append((part, bytes))
        }
        return parts
    }

    @Test("parts come out whole however the body is cut into chunks", arguments: [1, 2, 3, 7, 16, 61, 4096])
    func partsSurviveAnyChunking(chunkSize: Int) async throws {
        // Content that contains near-misses of the delimiter and CR LF pairs.
        let file = Data("line one\r\n--almost\r\n----attachtes\r\n--attach".utf8) + Data((0..<300).map { UInt8($0 % 256) })
        let form = Multipart(fields: [("note", nil, Data("hello".utf8)), ("file", "photo (1); ü.jpg", file), ("file", "b.bin", Data())])
        let parts = try await Self.read(form.data, boundary: form.boundary, chunkSize: chunkSize)
        #expect(parts.count == 3)
        #expect(parts[0].0.name == "note" && parts[0].0.filename == nil)
        #expect(parts[0].1 == Array("hello".utf8))
        #expect(parts[1].0.filename == "photo (1); ü.jpg")
        #expect(parts[1].1 == Array(file))
        #expect(parts[2].0.filename == "b.bin" && parts[2].1.isEmpty)
    }

    @Test("a part's body can be skipped")
    func skippedBodiesAreDrained() async throws {
        let form = Multipart(fields: [("a", "a.bin", Data(repeating: 1, count: 10_000)), ("b", "b.bin", Data("B".utf8))])
        let reader = MultipartReader(boundary: form.boundary, body: Chunks(data: Array(form.data), size: 100))
        #expect(try await reader.nextPart()?.name == "a")
        let second = try await reader.nextPart()
        #expect(second?.name == "b")
        var bytes: [UInt8] = []
        for try await chunk in reader.body() { bytes += chunk }
        #expect(bytes == Array("B".utf8))
        #expect(try await reader.nextPart() == nil)
    }

    @Test("a body cut before its closing boundary is an error")
    func truncatedBodyThrows() async throws {
        let form = Multipart(fields: [("file", "a.bin", Data(repeating: 7, count: 1000))])
        let cut = form.data.prefix(form.data.count - 20)
        await #expect(throws: MultipartReader<Chunks>.Malformed.self) {
            _ = try await Self.read(cut, boundary: form.boundary, chunkSize: 64)
        }
    }
}

@Suite("Byte ranges")
struct ByteRangeTests {
    @Test("single ranges resolve against the size", arguments: [
        ("bytes=0-0", ByteRange.satisfiable(0...0)),
        ("bytes=5-", .satisfiable(5...99)),
        ("bytes=-10", .satisfiable(90...99)),
        ("bytes=-1000", .satisfiable(0...99)),
        ("bytes=50-5000", .satisfiable(50...99)),
        ("bytes=100-", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=0-1,5-6", .ignored),
        ("items=0-1", .ignored),
        ("bytes=9-3", .ignored),
        ("bytes=abc", .ignored),
    ])
    func rangesResolve(header: String, expected: ByteRange) {
        #expect(ByteRange(header: header, size: 100) == expected)
    }

    @Test("header parameters unquote values")
    func headerParameters() {
        let parameters = HeaderParameters(#"form-data; name="file"; filename="a\"b;c.jpg"; x=1"#)
        #expect(parameters.value == "form-data")
        #expect(parameters["name"] == "file")
        #expect(parameters["filename"] == #"a"b;c.jpg"#)
        #expect(parameters["X"] == "1")
        #expect(HeaderParameters("multipart/form-data; boundary=----abc").self["boundary"] == "----abc")
    }

    @Test("an unterminated quoted value runs to the end of the header instead of reading past it", arguments: [
        #"multipart/form-data; boundary="abc"#, #"form-data; name="file"#, #"form-data; name=""#, #"x; a=""#, "x;", ";", #"""#,
    ])
    func unterminatedQuotes(header: String) {
        let parameters = HeaderParameters(header)
        #expect(parameters.value == header.split(separator: ";", omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces).lowercased())
        if header.hasPrefix("multipart") { #expect(parameters["boundary"] == "abc") }
    }
}
