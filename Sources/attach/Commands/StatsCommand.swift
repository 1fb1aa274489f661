import ArgumentParser
import AttachmentStore

/// `attach stats`: counts and sizes, including what deduplication saved.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show notes, attachments, blobs, bytes saved by deduplication, and disk use: originals, catalog, caches."
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
            ["blobs", "\(stats.blobs) here, \(stats.remoteBlobs) on peers, \(stats.evictedBlobs) evicted, \(stats.damagedBlobs) damaged"],
            ["referenced", Formatting.bytes(stats.referencedBytes)],
            ["stored", Formatting.bytes(stats.blobBytes)],
            ["saved by dedup", Formatting.bytes(stats.bytesSavedByDeduplication)],
            ["on disk", Formatting.bytes(stats.bytesOnDisk)],
            ["  originals", Formatting.bytes(stats.originalsOnDisk)],
            ["  catalog", Formatting.bytes(stats.catalogOnDisk)],
            ["  thumbnails", "\(Formatting.bytes(stats.thumbnailCacheOnDisk)) in \(stats.thumbnailCacheFiles) files (cache)"],
            ["  videos", "\(Formatting.bytes(stats.playableVideosOnDisk)) in \(stats.playableVideoFiles) playable copies (cache)"],
            ["  copies", "\(Formatting.bytes(stats.originalCopiesOnDisk)) of originals kept elsewhere (cache)"],
            ["  quarantine", Formatting.bytes(stats.quarantineOnDisk)],
            ["budget", "originals \(Self.limit(stats.budget.maxLocalBytes)), thumbnails \(Self.limit(stats.budget.maxThumbnailCacheBytes))"],
            ["scrub", "\(stats.scrubDamageFound) damaged found, \(stats.scrubRepaired) repaired"],
        ]
        for line in Formatting.table(rows) { Console.out(line) }
    }

    private static func limit(_ bytes: Int64?) -> String { bytes.map(Formatting.bytes) ?? "no limit" }
}
