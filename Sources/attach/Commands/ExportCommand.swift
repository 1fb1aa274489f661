import ArgumentParser
import AttachmentStore
import Foundation

/// `attach export`: writes an attachment's original bytes to a file.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an attachment's original bytes to a file, verified against its hash (a Live Photo: its still and its clip)."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("The attachment (id or unique prefix).", valueName: "ATTACHMENT"))
    var attachment: String
    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write, or a folder to write into under the attachment's file name.", valueName: "PATH"))
    var output: String

    func run() async throws {
        let store = try await storeOptions.open()
        let id = try await store.resolveAttachmentID(attachment)
        let content = try await store.original(of: id)
        var isDirectory: ObjCBool = false
        let intoFolder = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && isDirectory.boolValue
        let destination = try Self.destination(for: content, output: output, intoFolder: intoFolder)
        try await content.write(to: destination)
        Self.report(content, at: destination)
        // A Live Photo's clip goes beside its still: under its own name in a folder, else under
        // the file's name with the clip's extension.
        guard content.attachment.isLivePhoto else { return }
        let clip = try await store.motionOriginal(of: id)
        var clipDestination = try Self.destination(for: clip, output: output, intoFolder: intoFolder)
        if !intoFolder {
            clipDestination = destination.deletingPathExtension().appendingPathExtension(Self.fileExtension(of: clip.filename))
            if clipDestination == destination { clipDestination = destination.appendingPathExtension("mov") }
        }
        try await clip.write(to: clipDestination)
        Self.report(clip, at: clipDestination)
    }

    /// Where `content` goes: `output` itself, or in the folder `output` under its stored name,
    /// which becomes a path only through SafeFilename (no `..`, `/`, controls, bidi).
    private static func destination(for content: AttachmentContent, output: String, intoFolder: Bool) throws -> URL {
        intoFolder ? try SafeFilename(content.filename).path(in: URL(filePath: output)) : URL(filePath: output)
    }

    /// The extension of a stored name when it is 1 to 8 letters and digits (`MOV`), else `mov`.
    static func fileExtension(of filename: String) -> String {
        guard let dot = filename.lastIndex(of: ".") else { return "mov" }
        let candidate = filename[filename.index(after: dot)...]
        return (1...8).contains(candidate.count) && candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? String(candidate) : "mov"
    }

    private static func report(_ content: AttachmentContent, at destination: URL) {
        Console.out("\(destination.path(percentEncoded: false))  \(Formatting.bytes(content.byteCount))  sha256:\(content.hash)")
    }
}
