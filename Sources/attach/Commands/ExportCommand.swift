import ArgumentParser
import AttachmentStore
import Foundation

/// `attach export`: writes an attachment's original bytes to a file.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an attachment's original bytes to a file, verified against its hash."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("The attachment (id or unique prefix).", valueName: "ATTACHMENT"))
    var attachment: String
    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write, or a folder to write into under the attachment's file name.", valueName: "PATH"))
    var output: String

    func run() async throws {
        let store = try await storeOptions.open()
        let content = try await store.original(of: try await store.resolveAttachmentID(attachment))
        var destination = URL(filePath: output)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue {
            // The stored name becomes a path only through SafeFilename (no `..`, `/`, controls, bidi).
            destination = try SafeFilename(content.attachment.filename).path(in: destination)
        }
        try await content.write(to: destination)
        Console.out("\(destination.path(percentEncoded: false))  \(Formatting.bytes(content.byteCount))  sha256:\(content.hash)")
    }
}
