import ArgumentParser
import AttachmentStore

/// `attach verify`: re-hashes every blob and checks every reference.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every blob, check every reference; exit 2 and name the damage if any."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        let report = try await storeOptions.open().verify()
        if json {
            Console.json(report)
        } else {
            for damage in report.damage {
                Console.out("DAMAGED blob \(damage.hash) (\(damage.kind.rawValue)): \(damage.detail)")
                for broken in damage.brokenAttachments {
                    Console.out("  breaks attachment \(broken.id) \"\(broken.filename)\" of note \(broken.noteID)")
                }
                for key in damage.brokenImageKeys { Console.out("  breaks image key \"\(key)\"") }
            }
            for problem in report.catalogProblems { Console.out("DAMAGED catalog: \(problem)") }
            let verdict = report.isClean ? "clean" : "DAMAGED"
            Console.out("\(verdict): \(report.blobsChecked) blobs (\(Formatting.bytes(report.bytesChecked))) re-hashed, "
                + "\(report.attachmentsChecked) attachments checked, \(report.damage.count) damaged blobs; "
                + "\(report.unreferencedFiles) unreferenced files and \(report.temporaryFiles) temporary files for gc")
        }
        if !report.isClean { throw CommandFailure(code: ExitStatus.damage) }
    }
}
