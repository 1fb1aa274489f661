/// Why a request on a resumable upload was refused; the upload itself is left as it was (a
/// refused piece of bytes is dropped, never half-counted).
public enum ResumableUploadError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// No upload has this identifier (never created, cancelled, or removed by `gc`).
    case notFound(UploadID)
    /// The upload was abandoned for longer than its lifetime; its bytes are gone or going.
    case expired(UploadID)
    /// The request continues at `given`, but the store holds `expected` bytes: ask for the
    /// offset again and continue from there.
    case offsetMismatch(expected: Int64, given: Int64)
    /// Another request is writing this upload right now.
    case busy(UploadID)
    /// The bytes go past the length declared at creation.
    case exceedsLength(Int64)
    /// The bytes of the request do not have the checksum sent with them; they were dropped.
    case checksumMismatch
    /// The declared length is not a usable size (empty, or negative).
    case invalidLength(Int64)

    public var description: String {
        switch self {
        case .notFound(let id): "no upload \(id)"
        case .expired(let id): "upload \(id) expired; start a new one"
        case .offsetMismatch(let expected, let given):
            "the upload holds \(expected) bytes, but the request continues at \(given); ask for the offset and continue from there"
        case .busy(let id): "upload \(id) is being written by another request; try again when it ends"
        case .exceedsLength(let length): "the bytes go past the upload's declared length of \(length)"
        case .checksumMismatch: "the bytes do not match the checksum sent with them, so they were dropped; send them again"
        case .invalidLength(let length): "an upload's length must be at least 1 byte, not \(length)"
        }
    }
}
