import ArgumentParser
import AttachmentStore
import Foundation

/// `attach thumb`: writes one attachment's thumbnail to a file.
struct ThumbCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Write an attachment's thumbnail (upright, no metadata) to a file."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("The attachment (id or unique prefix).", valueName: "ATTACHMENT"))
    var attachment: String
    @Option(help: "Longest side in pixels.") var size = 200
    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "FILE"))
    var output: String

    func run() async throws {
        try OutputFile.refuseFolder(output)
        let store = try await storeOptions.open()
        let thumbnail = try await store.thumbnail(for: try await store.resolveAttachmentID(attachment), maxPixelSize: size)
        do {
            try thumbnail.data.write(to: URL(filePath: output), options: .atomic)
        } catch {
            throw AttachmentStore.Error.writeFailed(path: output, cause: .init(error))
        }
        Console.out("\(output)  \(thumbnail.width)x\(thumbnail.height)  \(thumbnail.mediaType)  \(Formatting.bytes(Int64(thumbnail.data.count)))")
    }
}
