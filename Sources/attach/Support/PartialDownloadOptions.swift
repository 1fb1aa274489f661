import ArgumentParser
import AttachmentStore

/// `attach serve`'s caps on the partial peer downloads in `tmp/` and how long a dead file there
/// is kept (``PartialDownloadLimits``); the storage budget's `--max-local-bytes` caps them too.
struct PartialDownloadOptions: ParsableArguments {
    @Option(name: .customLong("max-partial-bytes"),
            help: ArgumentHelp("Keep at most this much of unfinished peer downloads in tmp/ (default 1G; also held within "
                               + "--max-local-bytes). The oldest leftovers of cut transfers go first.", valueName: "SIZE"))
    var maxPartialBytes: ByteSize?

    @Option(name: .customLong("max-partial-bytes-per-peer"),
            help: ArgumentHelp("Keep at most this much of unfinished downloads from any one peer (default 256M).", valueName: "SIZE"))
    var maxPartialBytesPerPeer: ByteSize?

    @Option(name: .customLong("partial-lifetime"),
            help: ArgumentHelp("Seconds a cut download (or any dead file in tmp/) is kept for a resume before the server "
                               + "removes it.", valueName: "SECONDS"))
    var partialLifetime: Double = 600

    /// Checks the values.
    func validate() throws {
        guard partialLifetime > 0 else { throw ValidationError("--partial-lifetime must be a positive number of seconds") }
    }

    /// The limits the options give (a `none` size means no cap of its own).
    var limits: PartialDownloadLimits {
        var limits = PartialDownloadLimits()
        if let maxPartialBytes { limits.maxBytes = maxPartialBytes.bytes ?? .max }
        if let maxPartialBytesPerPeer { limits.maxBytesPerPeer = maxPartialBytesPerPeer.bytes ?? .max }
        limits.lifetime = .milliseconds(Int64(partialLifetime * 1000))
        return limits
    }
}
