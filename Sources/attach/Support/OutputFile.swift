import AttachmentStore
import Foundation

/// The file a command writes with `-o FILE` (`attach thumb`, `attach video`).
enum OutputFile {
    /// Refuses a folder before any work is done: Foundation would report only "error 512" after it.
    /// - Throws: ``AttachmentStore/Error/invalidArgument(_:)`` when `path` is a folder.
    static func refuseFolder(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AttachmentStore.Error.invalidArgument("cannot write \(path): Is a directory; -o names the file to write")
        }
    }
}
