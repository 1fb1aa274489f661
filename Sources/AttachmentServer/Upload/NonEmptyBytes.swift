/// A file's bytes that must hold at least one byte: when `base` ends before its first non-empty
/// chunk, iteration throws 422 `empty_upload`, so an empty raw body (even one sent chunked, with no
/// `Content-Length` to tell) or an empty form part is refused like any other empty upload, and the
/// store discards what it had staged.
struct NonEmptyBytes<Base: AsyncSequence>: AsyncSequence where Base.Element: Collection {
    typealias Element = Base.Element

    let base: Base

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var sawByte = false

        mutating func next() async throws -> Element? {
            while let chunk = try await base.next() {
                if chunk.isEmpty { continue }
                sawByte = true
                return chunk
            }
            guard sawByte else { throw ServerError.unprocessable("the upload is empty", code: "empty_upload") }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}
