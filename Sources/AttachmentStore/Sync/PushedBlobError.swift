/// Why a peer's pushed bytes of an original were refused (`PATCH /sync/blobs/{hash}` of
/// `attach serve`). Nothing already stored changed; bytes that were right so far stay for the
/// next request to resume after.
public enum PushedBlobError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// No record here refers to these bytes: push the records that name them first.
    case notWanted(BlobHash)
    /// The request continues at `given`, but `expected` bytes are held: ask again and go on from there.
    case offsetMismatch(expected: Int64, given: Int64)
    /// Another transfer of these bytes (a push, or this store's own fetch) is running now.
    case busy(BlobHash)
    /// More bytes were sent than the original has (`byteCount`, from its record).
    case exceedsSize(BlobHash, byteCount: Int64)
    /// Every byte arrived but they hash to `actual`: they were dropped, and the next push starts over.
    case hashMismatch(expected: BlobHash, actual: BlobHash)

    public var description: String {
        switch self {
        case .notWanted(let hash):
            "no record here refers to blob \(hash); push the changes that name it first"
        case .offsetMismatch(let expected, let given):
            "\(expected) bytes of the blob are held here, but the request continues at \(given); ask for the offset and continue from there"
        case .busy(let hash):
            "another transfer of blob \(hash) is running; try again when it ends"
        case .exceedsSize(let hash, let byteCount):
            "the bytes go past the \(byteCount) bytes of blob \(hash)"
        case .hashMismatch(let expected, let actual):
            "the bytes sent for blob \(expected) hash to \(actual); they were dropped, send them again from the start"
        }
    }
}
