import ArgumentParser
import AttachmentStore
import Foundation

/// `attach video`: writes the copy of a video attachment a browser plays to a file.
struct VideoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract: "Write the playable copy of a video attachment (H.264/AAC MP4, upright, index first) to a file.",
        discussion: """
            The copy the web app plays: made by ffmpeg on first request (a clip that is already \
            H.264 and AAC is copied stream for stream; anything else is transcoded) and kept in \
            the store's cache. The original is never changed; `attach export` gives it back.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("The attachment (id or unique prefix).", valueName: "ATTACHMENT"))
    var attachment: String
    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "FILE"))
    var output: String

    func run() async throws {
        try OutputFile.refuseFolder(output)
        let store = try await storeOptions.open()
        let started = ContinuousClock.now
        let video = try await store.playableVideo(for: try await store.resolveAttachmentID(attachment))
        let target = URL(filePath: output)
        do {
            if FileManager.default.fileExists(atPath: output) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.copyItem(at: URL(filePath: video.path), to: target)
        } catch {
            throw AttachmentStore.Error.writeFailed(path: output, cause: .init(error))
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        Console.out("\(output)  video/mp4  \(Formatting.bytes(video.byteCount))  ready in \(String(format: "%.1f", seconds)) s")
    }
}
