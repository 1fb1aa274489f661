import ArgumentParser
import AttachmentStore

/// `attach gc`: purges the trash past its retention, then removes unreferenced blobs and dead temporary files.
struct GarbageCollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Purge the trash past its retention, then remove unreferenced blobs and leftover temporary files older than the grace period."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var trashOptions: TrashOptions
    @Flag(help: "Report what would be removed; remove nothing.") var dryRun = false
    @Option(help: ArgumentHelp("Only garbage older than this: 0, 90s, 15m, 1h, 2d.", valueName: "DURATION"))
    var grace = "1h"
    @Flag(help: "Print the report as JSON.") var json = false

    func validate() throws {
        if Formatting.duration(grace) == nil { throw ValidationError("--grace takes a duration such as 0, 90s, 15m, 1h or 2d") }
    }

    func run() async throws {
        let store = try await storeOptions.open(configuration: trashOptions.applied())
        let report = try await store.collectGarbage(olderThan: Formatting.duration(grace)!, dryRun: dryRun)
        if json { return Console.json(report) }
        let verb = dryRun ? "would remove" : "removed"
        if report.trashedNotesPurged + report.trashedAttachmentsPurged > 0 {
            Console.out("\(dryRun ? "would purge" : "purged") \(report.trashedNotesPurged) notes and \(report.trashedAttachmentsPurged) "
                + "attachments from the trash (older than \(trashOptions.trashDays) days)")
        }
        Console.out("\(verb) \(report.blobs) unreferenced blobs, \(report.orphanFiles) orphan files, "
            + "\(report.temporaryFiles) temporary files, \(report.expiredUploads) expired uploads: \(Formatting.bytes(report.totalBytes)); "
            + "\(report.keptInGracePeriod) kept (younger than \(grace))")
    }
}
