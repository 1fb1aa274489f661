import ArgumentParser
import AttachmentStore

/// `attach stats`: counts and sizes, including what deduplication saved.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show notes, attachments, blobs, bytes on disk and bytes saved by deduplication."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let stats = try await storeOptions.open().statistics()
        if json { return Console.json(stats) }
        let rows = [
            ["notes", String(stats.notes)],
            ["attachments", String(stats.attachments)],
            ["image keys", String(stats.imageKeys)],
            ["blobs", "\(stats.blobs) here, \(stats.remoteBlobs) on peers"],
            ["referenced", Formatting.bytes(stats.referencedBytes)],
            ["stored", Formatting.bytes(stats.blobBytes)],
            ["saved by dedup", Formatting.bytes(stats.bytesSavedByDeduplication)],
            ["on disk", Formatting.bytes(stats.bytesOnDisk)],
        ]
        for line in Formatting.table(rows) { Console.out(line) }
    }
}
