import ArgumentParser
import AttachmentStore

/// `--max-local-bytes` and `--max-thumbnail-cache-bytes`, for the commands that set a store's
/// storage budget (`init`, `serve`). Given ones are recorded in the store's settings and kept.
struct StorageBudgetOptions: ParsableArguments {
    @Option(name: .customLong("max-local-bytes"),
            help: ArgumentHelp("Keep at most this much of originals on this machine (500M, 20G, none); the least recently "
                               + "read ones a peer holds are evicted and fetched again when read. Kept in the store.", valueName: "SIZE"))
    var maxLocalBytes: ByteSize?

    @Option(name: .customLong("max-thumbnail-cache-bytes"),
            help: ArgumentHelp("Keep at most this much in the thumbnail disk cache (none for no limit). Kept in the store.",
                               valueName: "SIZE"))
    var maxThumbnailCacheBytes: ByteSize?

    /// Whether any option was given.
    var isGiven: Bool { maxLocalBytes != nil || maxThumbnailCacheBytes != nil }

    /// `current` with the given options applied.
    func applied(to current: StorageBudget) -> StorageBudget {
        var budget = current
        if let maxLocalBytes { budget.maxLocalBytes = maxLocalBytes.bytes }
        if let maxThumbnailCacheBytes { budget.maxThumbnailCacheBytes = maxThumbnailCacheBytes.bytes }
        return budget
    }
}
